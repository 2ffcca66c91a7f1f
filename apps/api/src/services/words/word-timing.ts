import type { Schema } from "@verbatim/contract";
import type { TimedWord } from "../../adapters/parsing/words.ts";
import { ingestedText } from "./segment-text.ts";

type Segment = Schema<"Segment">;
export type Word = Schema<"Word">;
export type WordTiming = Schema<"WordTiming">;

/**
 * The words of a text: its runs of characters other than white space, in order. Joined by single
 * spaces they give the text with each run of white space read as one space: the words a segment
 * carries are these, whatever timed them.
 */
export function wordsOf(text: string): string[] {
  return text.split(/\s+/).filter((word) => word !== "");
}

/**
 * A source's words as the service keeps a segment's text (`ingestedText`), so that they still
 * spell it: a word a line separator split is two words at its time, one a control character
 * made empty is none.
 */
export function ingestedWords(words: readonly TimedWord[]): TimedWord[] {
  return words.flatMap((word) => {
    const parts = wordsOf(ingestedText(word.text));
    return parts.map((text, index) => ({
      text,
      start: word.start,
      duration: index === parts.length - 1 ? word.duration : 0,
    }));
  });
}

/**
 * Word times for a segment whose source gave none: the segment's time shared out among its words
 * by their share of its characters (code points, spaces left out), each word starting where the
 * one before it ends.
 */
export function estimatedWords(segment: Segment): TimedWord[] {
  const words = wordsOf(segment.text);
  const lengths = words.map(characterCount);
  const total = lengths.reduce((sum, length) => sum + length, 0);
  const { startMs, endMs } = boundsOf(segment);
  let before = 0;
  return words.map((text, index) => {
    const from = startMs + Math.round(((endMs - startMs) * before) / total);
    before += lengths[index] ?? 0;
    const to = startMs + Math.round(((endMs - startMs) * before) / total);
    return { text, start: from / 1000, duration: (to - from) / 1000 };
  });
}

/**
 * The source's word times made to keep the rules for a segment, or null when its words do not
 * spell the segment's text (the source's words were of another text). The rules: the words,
 * joined by single spaces, give the text (`wordsOf`); each starts no earlier than the one before
 * it; each lies inside the segment. Times are kept to the millisecond; one outside the segment is
 * moved to its nearer end, one before its predecessor's start to that start.
 */
export function fittedWords(segment: Segment, source: readonly TimedWord[]): TimedWord[] | null {
  const words = wordsOf(segment.text);
  if (words.length !== source.length || source.some((word, index) => word.text !== words[index])) return null;
  const { startMs, endMs } = boundsOf(segment);
  let previousStart = startMs;
  return source.map((word) => {
    const from = Math.max(previousStart, clamp(Math.round(word.start * 1000), startMs, endMs));
    const to = clamp(Math.round((word.start + word.duration) * 1000), from, endMs);
    previousStart = from;
    return { text: word.text, start: from / 1000, duration: (to - from) / 1000 };
  });
}

/**
 * The segment's words as its source timed them, kept to the rules (`fittedWords`); null when the
 * source timed none, or words of another text. A segment of one word (or none) is timed by its
 * source all the same: the segment's times are the word's.
 */
export function sourceTimedWords(segment: Segment): TimedWord[] | null {
  const fitted = segment.words ? fittedWords(segment, segment.words) : null;
  if (fitted) return fitted;
  return wordsOf(segment.text).length <= 1 ? estimatedWords(segment) : null;
}

/**
 * Every segment with its words timed, and whether all those times came from the source: the
 * source's words (`sourceTimedWords`), else the estimate.
 */
export function timedSegments(segments: readonly Segment[]): { segments: Segment[]; timing: WordTiming } {
  let estimated = false;
  const timed = segments.map((segment) => {
    const source = sourceTimedWords(segment);
    if (source === null) estimated = true;
    return { ...segment, words: source ?? estimatedWords(segment) };
  });
  return { segments: timed, timing: estimated ? "estimated" : "source" };
}

/** The segment as a request without `words` gets it: no word times, whatever the source gave. */
export function withoutWords(segment: Segment): Segment {
  if (segment.words === undefined) return segment;
  const { words: _dropped, ...rest } = segment;
  return rest;
}

/**
 * A transcript as a request answers it: with `words`, every segment with its words timed and
 * `word_timing` said; without, no word times at all (the store and the job keep the source's).
 */
export function presentedTranscript<T extends { segments: Segment[]; word_timing?: WordTiming }>(
  transcript: T,
  words: boolean,
): T {
  if (!words) {
    if (!transcript.segments.some((segment) => segment.words !== undefined)) return transcript;
    const { word_timing: _dropped, ...rest } = transcript;
    return { ...rest, segments: transcript.segments.map(withoutWords) } as T;
  }
  const timed = timedSegments(transcript.segments);
  return { ...transcript, segments: timed.segments, word_timing: timed.timing };
}

/** The segment's start and end in whole milliseconds: the times of the service's segments are kept to the millisecond. */
function boundsOf(segment: Segment): { startMs: number; endMs: number } {
  const startMs = Math.round(segment.start * 1000);
  return { startMs, endMs: Math.max(startMs, Math.round((segment.start + segment.duration) * 1000)) };
}

function clamp(value: number, low: number, high: number): number {
  return Math.min(high, Math.max(low, value));
}

function characterCount(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}
