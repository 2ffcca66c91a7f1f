import * as cheerio from "cheerio";
import { parseSync } from "subtitle";
import { withoutTags } from "../parsing/markup.ts";
import { type TimedWord, wordsOfPieces } from "../parsing/words.ts";
import type { PublisherTranscript, TimedSegment } from "./audio-source.ts";

type TranscriptFormat = PublisherTranscript["format"];

/** A transcript's timed text and speakers, before it is tied to a source. */
export interface ParsedTranscript {
  format: TranscriptFormat;
  segments: TimedSegment[];
  /** Speaker labels in order of first appearance; null when the file names none. */
  speakers: string[] | null;
}

/** Why a transcript did not parse, for the log. */
export interface TranscriptFailure {
  failure: string;
}

/** How to read a transcript file. */
export interface TranscriptReading {
  /** The format the feed declared; the content has the last word (feeds mislabel SRT and VTT). */
  declaredFormat: TranscriptFormat | null;
  /** The episode's duration, for the end of the last HTML paragraph and of untimed text. */
  durationSeconds: number | null;
}

/**
 * Parses a publisher transcript: SRT, WebVTT, Podcasting 2.0 JSON, the namespace's HTML form,
 * or plain text (one untimed segment). Text is entity-decoded and whitespace-collapsed, empty
 * cues are dropped, times are seconds, and segments are ordered by start.
 */
export function parsePublisherTranscript(
  text: string,
  reading: TranscriptReading,
): ParsedTranscript | TranscriptFailure {
  const format = sniffedFormat(text) ?? reading.declaredFormat ?? "text";
  const speakers = new SpeakerList();
  let segments: TimedSegment[] | TranscriptFailure;
  switch (format) {
    case "srt":
    case "vtt":
      segments = cuesOf(text, format, speakers);
      break;
    case "json":
      segments = jsonSegmentsOf(text, speakers);
      break;
    case "html":
      segments = htmlSegmentsOf(text, speakers, reading.durationSeconds);
      break;
    case "text":
      segments = plainSegmentsOf(text, reading.durationSeconds);
      break;
  }
  if (!Array.isArray(segments)) return segments;
  if (segments.length === 0) return { failure: `the ${format} transcript holds no text` };
  return {
    format,
    segments: segments.sort((a, b) => a.start - b.start),
    speakers: speakers.names.length > 0 ? speakers.names : null,
  };
}

/** The format the content shows, or null when it could be anything (plain text). */
function sniffedFormat(text: string): TranscriptFormat | null {
  const head = text.replace(/^\uFEFF/, "").trimStart();
  if (/^WEBVTT(?:[ \t\r\n]|$)/.test(head)) return "vtt";
  if (head.startsWith("{")) return "json";
  if (/^\d+[ \t]*\r?\n[ \t]*(?:\d+:)?\d{1,2}:\d{1,2}[,.]\d{1,3}[ \t]*-->/.test(head)) return "srt";
  if (head.startsWith("<")) return "html";
  return null;
}

class SpeakerList {
  readonly names: string[] = [];

  indexOf(name: string): number {
    const existing = this.names.indexOf(name);
    if (existing >= 0) return existing;
    this.names.push(name);
    return this.names.length - 1;
  }
}

/** "Travis: When you first get…": a speaker label of up to three capitalized words before a colon. */
const speakerPrefix = /^(\p{Lu}[\p{L}\p{N}'’.-]*(?: [\p{Lu}\p{N}][\p{L}\p{N}'’.-]*){0,2}):\s+(.+)$/su;

/** WebVTT blocks that are not cues; the subtitle parser stops at them. */
const nonCueBlock = /^(?:NOTE|STYLE|REGION)(?:[ \t\r\n]|$)/;

function cuesOf(text: string, format: "srt" | "vtt", speakers: SpeakerList): TimedSegment[] | TranscriptFailure {
  const normalized = text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  const blocks = normalized
    .split(/\n{2,}/)
    .filter((block) => !nonCueBlock.test(block.trimStart()))
    .map(withoutCueIdentifier);
  let nodes: ReturnType<typeof parseSync>;
  try {
    nodes = parseSync(blocks.join("\n\n"));
  } catch (error) {
    return { failure: `the ${format} transcript does not parse: ${(error as Error).message}` };
  }
  const segments: TimedSegment[] = [];
  // SRT marks only speaker changes ("Travis: …"); the cues after one belong to that speaker.
  let currentSpeaker: number | undefined;
  for (const node of nodes) {
    if (node.type !== "cue") continue;
    const { start, end, text: cueText } = node.data;
    let speaker: number | undefined;
    let body: string;
    if (format === "vtt") {
      // Each attempt stops at the next "<", so a cue of many "<" costs linear time; the bounds keep
      // the backtracking of one attempt short however long a run without "<" is, and are far longer
      // than any voice's classes or name.
      const voice = /<v(?:\.[^\s<>]{1,256})?\s+([^<>]{1,1024})>/.exec(cueText)?.[1]?.trim();
      speaker = voice ? speakers.indexOf(decodeEntities(voice)) : undefined;
      body = plainCueText(cueText);
    } else {
      body = plainCueText(cueText);
      const labelled = speakerPrefix.exec(body);
      if (labelled?.[1] && labelled[2]) {
        currentSpeaker = speakers.indexOf(labelled[1]);
        body = labelled[2];
      }
      speaker = currentSpeaker;
    }
    if (body.length === 0) continue;
    const words = format === "vtt" ? timedWordsOf(cueText, start / 1000, end / 1000) : null;
    segments.push(segmentOf(start / 1000, end / 1000, body, speaker, words));
  }
  return segments;
}

/** A WebVTT cue timestamp (`<00:01.200>`, `<00:00:01.200>`): where the text after it is spoken. */
const cueTimestamp = /<(?:(\d+):)?(\d{2}):(\d{2})\.(\d{3})>/g;

/**
 * The words of a WebVTT cue that times them with cue timestamps (karaoke captions), each from
 * the timestamp before it, or the cue's start; null when the cue has none.
 */
function timedWordsOf(cueText: string, start: number, end: number): TimedWord[] | null {
  const pieces: Array<{ text: string; start: number }> = [];
  let at = 0;
  let pieceStart = start;
  for (const match of cueText.matchAll(cueTimestamp)) {
    pieces.push({ text: plainPieceText(cueText.slice(at, match.index)), start: pieceStart });
    const [, hours = "0", minutes = "0", seconds = "0", milliseconds = "0"] = match;
    pieceStart = Number(hours) * 3600 + Number(minutes) * 60 + Number(seconds) + Number(milliseconds) / 1000;
    at = match.index + match[0].length;
  }
  if (pieces.length === 0) return null;
  pieces.push({ text: plainPieceText(cueText.slice(at)), start: pieceStart });
  return wordsOfPieces(pieces, end);
}

/** A piece of cue text as the cue's text is made (`plainCueText`), its white space left for the words to split at. */
function plainPieceText(cueText: string): string {
  return decodeEntities(withoutTags(cueText));
}

/** A cue without its identifier line (`hello`, `intro-1`): the subtitle parser takes only SRT's numbers. */
function withoutCueIdentifier(block: string): string {
  const [first, second] = block.split("\n", 2);
  return first !== undefined && !first.includes("-->") && second?.includes("-->")
    ? block.slice(first.length + 1)
    : block;
}

/** Cue text without markup (`<v …>`, `<i>`, inline timestamps), entity-decoded, on one line. */
function plainCueText(cueText: string): string {
  return collapse(decodeEntities(withoutTags(cueText)));
}

interface JsonTranscript {
  segments?: unknown;
}

function jsonSegmentsOf(text: string, speakers: SpeakerList): TimedSegment[] | TranscriptFailure {
  let document: JsonTranscript;
  try {
    document = JSON.parse(text) as JsonTranscript;
  } catch (error) {
    return { failure: `the JSON transcript does not parse: ${(error as Error).message}` };
  }
  if (!Array.isArray(document.segments)) return { failure: "the JSON transcript has no segments array" };
  const segments: TimedSegment[] = [];
  for (const entry of document.segments as Record<string, unknown>[]) {
    const { startTime, endTime, body, speaker } = entry;
    if (typeof startTime !== "number" || typeof body !== "string") continue;
    const text = collapse(body);
    if (text.length === 0) continue;
    const end = typeof endTime === "number" ? endTime : startTime;
    const speakerIndex = typeof speaker === "string" && speaker.trim() ? speakers.indexOf(speaker.trim()) : undefined;
    segments.push(segmentOf(startTime, end, text, speakerIndex));
  }
  return segments;
}

/**
 * The namespace's HTML form: `<cite>Speaker:</cite> <time>0:00</time> <p>text</p>` blocks. A
 * paragraph ends where the next begins; the last at the episode's end, when known.
 */
function htmlSegmentsOf(text: string, speakers: SpeakerList, durationSeconds: number | null): TimedSegment[] {
  const $ = cheerio.load(text);
  const paragraphs: { start: number; text: string; speaker: number | undefined }[] = [];
  let speaker: number | undefined;
  let start: number | null = null;
  $("cite, time, p").each((_, element) => {
    const node = $(element);
    const content = collapse(node.text());
    if (element.tagName === "cite") {
      const name = content.replace(/:$/, "").trim();
      speaker = name ? speakers.indexOf(name) : undefined;
    } else if (element.tagName === "time") {
      start = clockSeconds(node.attr("datetime") ?? content);
    } else if (content.length > 0) {
      paragraphs.push({ start: start ?? paragraphs.at(-1)?.start ?? 0, text: content, speaker });
      start = null;
    }
  });
  return paragraphs.map((paragraph, index) => {
    const next = paragraphs[index + 1]?.start;
    const end = next ?? Math.max(durationSeconds ?? paragraph.start, paragraph.start);
    return segmentOf(paragraph.start, end, paragraph.text, paragraph.speaker);
  });
}

function plainSegmentsOf(text: string, durationSeconds: number | null): TimedSegment[] {
  const body = collapse(text.replace(/^\uFEFF/, ""));
  return body.length === 0 ? [] : [segmentOf(0, durationSeconds ?? 0, body, undefined)];
}

function segmentOf(
  start: number,
  end: number,
  text: string,
  speaker: number | undefined,
  words: TimedWord[] | null = null,
): TimedSegment {
  const duration = Math.max(0, Math.round((end - start) * 1000) / 1000);
  return {
    start: Math.round(start * 1000) / 1000,
    duration,
    text,
    ...(speaker === undefined ? {} : { speaker }),
    ...(words === null ? {} : { words }),
  };
}

/** "1:02:03", "12:34", "75", "0:53.5" in seconds; null when it is none of these. */
function clockSeconds(value: string): number | null {
  if (!/^\d+(?::\d{1,2}){0,2}(?:[.,]\d+)?$/.test(value.trim())) return null;
  return value
    .trim()
    .replace(",", ".")
    .split(":")
    .reduce((total, part) => total * 60 + Number(part), 0);
}

function collapse(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** The entities cue text carries: WebVTT's own, the common HTML ones, and numeric references. */
const namedEntities: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: "\u00a0",
  lrm: "\u200e",
  rlm: "\u200f",
  hellip: "…",
  mdash: "—",
  ndash: "–",
  lsquo: "‘",
  rsquo: "’",
  ldquo: "“",
  rdquo: "”",
};

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, entity: string) => {
    if (entity[0] === "#") {
      const codePoint =
        entity[1] === "x" || entity[1] === "X" ? Number.parseInt(entity.slice(2), 16) : Number(entity.slice(1));
      return codePoint > 0 && codePoint <= 0x10ffff ? String.fromCodePoint(codePoint) : whole;
    }
    return namedEntities[entity.toLowerCase()] ?? whole;
  });
}
