import type { Schema } from "@verbatim/contract";
import { sql } from "drizzle-orm";
import type { DatabaseOrTransaction } from "../../store/database.ts";
import { sourceTimedWords, wordsOf } from "../words/index.ts";
import type { FullTranscript } from "./transcript-store.ts";

type Segment = Schema<"Segment">;

/** A passage ends once it holds this much speech or text, at a segment's end. */
const passageSeconds = 60;
const passageCharacters = 1500;

interface Passage {
  position: number;
  text: string;
  starts: number[];
  offsets: number[];
  /** Each word's start and duration, word by word as `text` splits at spaces, when the source timed every one. */
  wordStarts: number[] | null;
  wordDurations: number[] | null;
}

/** The text with each control character (the match markers among them) made a space. */
function withoutControlCharacters(text: string): string {
  let cleaned = "";
  for (const character of text) {
    const code = character.charCodeAt(0);
    cleaned += code < 0x20 || code === 0x7f ? " " : character;
  }
  return cleaned;
}

/**
 * The segments of a transcript in passages of about a minute, each segment's start and place in
 * its passage's text kept, and the times of the passage's words when the source timed them all.
 */
export function passagesOf(segments: FullTranscript["segments"]): Passage[] {
  const passages: Passage[] = [];
  let current: Passage | null = null;
  for (const segment of segments) {
    const words = withoutControlCharacters(segment.text).replace(/\s+/g, " ").trim();
    if (words === "") continue;
    if (
      current &&
      (segment.start - (current.starts[0] ?? 0) >= passageSeconds || current.text.length >= passageCharacters)
    ) {
      passages.push(current);
      current = null;
    }
    current ??= { position: passages.length, text: "", starts: [], offsets: [], wordStarts: [], wordDurations: [] };
    if (current.text !== "") current.text += " ";
    current.starts.push(segment.start);
    current.offsets.push(current.text.length);
    current.text += words;
    keepWordTimes(current, segment, words);
  }
  if (current) passages.push(current);
  return passages;
}

/** Adds a segment's word times to its passage's, or makes the passage untimed when the source did not time them. */
function keepWordTimes(passage: Passage, segment: Segment, kept: string): void {
  if (passage.wordStarts === null || passage.wordDurations === null) return;
  const timed = sourceTimedWords(segment);
  if (timed === null || timed.length !== wordsOf(kept).length) {
    passage.wordStarts = null;
    passage.wordDurations = null;
    return;
  }
  for (const word of timed) {
    passage.wordStarts.push(word.start);
    passage.wordDurations.push(word.duration);
  }
}

/** What `passagesOf` kept of a passage: its text, each segment's start and place in that text, and its words' times. */
export type StoredPassage = Pick<Passage, "text" | "starts" | "offsets"> &
  Partial<Pick<Passage, "wordStarts" | "wordDurations">>;

/**
 * The segments that passages keep, in order: each segment's words are its passage's text from its
 * offset to the space before the next one's. The passages keep no durations, so a segment lasts
 * until the next one starts, and the last until the media ends (`duration`), or 0 when unknown.
 */
export function segmentsOfPassages(passages: readonly StoredPassage[], duration: number | null): Segment[] {
  const timed: Array<{ start: number; text: string; words?: Segment["words"] }> = [];
  for (const passage of passages) {
    let word = 0;
    passage.offsets.forEach((offset, index) => {
      const next = passage.offsets[index + 1];
      const text = passage.text.slice(offset, next === undefined ? undefined : next - 1);
      const texts = wordsOf(text);
      const { wordStarts, wordDurations } = passage;
      const words =
        wordStarts && wordDurations
          ? texts.map((wordText, at) => ({
              text: wordText,
              start: wordStarts[word + at] ?? 0,
              duration: wordDurations[word + at] ?? 0,
            }))
          : undefined;
      word += texts.length;
      timed.push({ start: passage.starts[index] ?? 0, text, ...(words ? { words } : {}) });
    });
  }
  return timed.map((segment, index) => {
    const until = timed[index + 1]?.start ?? duration ?? segment.start;
    const { start, text, words } = segment;
    return { start, duration: Math.max(0, roundedSeconds(until - start)), text, ...(words ? { words } : {}) };
  });
}

/** Differences of stored times to the millisecond: 5.26 - 2.31 is 2.95, not 2.9499999999999997. */
function roundedSeconds(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}

/** The entry whose passages are written, and the text search configuration that indexes them. */
export interface IndexedEntry {
  id: number | string;
  search_config: string;
}

/** Replaces the entry's passages with those of these segments, indexed with the entry's configuration. */
export async function replacePassages(
  entry: IndexedEntry,
  segments: FullTranscript["segments"],
  db: DatabaseOrTransaction,
): Promise<void> {
  await db.execute(sql`delete from library_passages where entry_id = ${entry.id}`);
  const passages = passagesOf(segments);
  if (passages.length === 0) return;
  await db.execute(
    sql`insert into library_passages (entry_id, position, text, segment_starts, segment_offsets, word_starts,
                                      word_durations, words)
        select ${entry.id}, p.position, p.text, p.starts, p.offsets, p."wordStarts", p."wordDurations",
               to_tsvector(${entry.search_config}::regconfig, p.text)
          from jsonb_to_recordset(${JSON.stringify(passages)}::jsonb)
               as p(position integer, text text, starts double precision[], offsets integer[],
                    "wordStarts" double precision[], "wordDurations" double precision[])`,
  );
}
