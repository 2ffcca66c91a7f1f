import type { Schema } from "@verbatim/contract";
import { toSrt, toVtt } from "@verbatim/sdk";
import { ApiError } from "../../errors.ts";
import { timedSegments, withoutWords } from "../words/index.ts";

export type Segment = Schema<"Segment">;
export type TranscriptFormat = Schema<"TranscriptFormat">;
export type TranscriptChunk = Schema<"TranscriptChunk">;
export type Chapter = Schema<"Chapter">;
/** The contract spreads its `TranscriptRenderings` into `Transcript` and `LibraryTranscript`, so no schema bears the name. */
export type TranscriptRenderings = Pick<
  Schema<"Transcript">,
  "text" | "segments" | "format" | "subtitles" | "chunks" | "word_timing"
>;

/** How a request asked the transcript to be written out. */
export interface RenderingRequest {
  format: TranscriptFormat;
  /** Characters per chunk; without it (and without `chapters`), no `chunks`. */
  chunkSize?: number;
  /** `chunk_by: "chapter"`: the transcript's chapters, where `chunks` are cut (an empty list when it has none). */
  chapters?: readonly Chapter[];
  /** Time each word: `segments[].words`, or cue timestamps in WebVTT, and `word_timing` (`words: true`). */
  words?: boolean;
}

/**
 * The renderings of a transcript as the request asked: only `segments`, only `text`, or only
 * `format` and `subtitles`; `chunks` besides when `chunkSize` is set. With `words`, the segments
 * or the WebVTT cues carry word times and `word_timing` says where they came from (the route
 * refuses `words` with `text` and `srt`); without, no segment carries any. `text` is the segments'
 * texts joined by single spaces, as every transcript's `text` is. Subtitles are the Node SDK's
 * writers' output, so a client converting `segments` itself gets the same file.
 */
export function renderTranscript(segments: readonly Segment[], request: RenderingRequest): TranscriptRenderings {
  const chunks = chunksAsAsked(segments, request);
  if (request.words) {
    const timed = timedSegments(segments);
    const written =
      request.format === "vtt"
        ? { format: "vtt" as const, subtitles: toVtt(timed.segments) }
        : { segments: timed.segments };
    return { ...written, ...chunks, word_timing: timed.timing };
  }
  switch (request.format) {
    case "segments":
      return { segments: segments.map(withoutWords), ...chunks };
    case "text":
      return { text: textOf(segments), ...chunks };
    case "srt":
      return { format: "srt", subtitles: toSrt(segments), ...chunks };
    case "vtt":
      return { format: "vtt", subtitles: toVtt(segments.map(withoutWords)), ...chunks };
  }
}

/** The `chunks` a request asked for: by chapter, by size, or none. */
function chunksAsAsked(segments: readonly Segment[], request: RenderingRequest): { chunks?: TranscriptChunk[] } {
  if (request.chapters) return { chunks: chunksByChapter(segments, request.chapters, request.chunkSize) };
  return request.chunkSize === undefined ? {} : { chunks: chunksOf(segments, request.chunkSize) };
}

/**
 * The transcript cut at its chapters: each segment goes with the last chapter that starts at or
 * before it (those before the first chapter go without one), and each chapter's segments are
 * one chunk, or, with `size`, `chunksOf` them, so a chapter longer than `size` is cut into
 * several. Each chunk names its chapter. Without chapters it is `chunksOf`, or one chunk of the
 * whole transcript without `size`. Joined by spaces, the chunks are `text`, as `chunksOf`'s are.
 */
export function chunksByChapter(
  segments: readonly Segment[],
  chapters: readonly Chapter[],
  size: number | undefined,
): TranscriptChunk[] {
  const limit = size ?? Number.POSITIVE_INFINITY;
  const chunks: TranscriptChunk[] = [];
  let chapterIndex = -1;
  let group: Segment[] = [];
  const close = () => {
    const title = chapters[chapterIndex]?.title;
    for (const chunk of chunksOf(group, limit)) chunks.push(title === undefined ? chunk : { ...chunk, chapter: title });
    group = [];
  };
  for (const segment of segments) {
    let next = chapterIndex;
    while (next + 1 < chapters.length && (chapters[next + 1] as Chapter).start <= segment.start) next++;
    if (next !== chapterIndex) {
      close();
      chapterIndex = next;
    }
    group.push(segment);
  }
  close();
  return chunks;
}

/**
 * Refuses `words` with a format that has no place for word times (`text`, `srt`), before anything
 * is fetched or charged; `path` names the parameter in the issue (`/body/words`, `/query/words`).
 */
export function requireWordTimes(format: TranscriptFormat, path: string): void {
  if (format === "segments" || format === "vtt") return;
  throw new ApiError(
    "invalid_request",
    `words: true needs segments or WebVTT; format "${format}" has no place for word times.`,
    {
      extra: {
        issues: [{ path, message: `format "${format}" has no word times; ask for segments or vtt, or drop words.` }],
      },
    },
  );
}

/** The segments' texts joined by single spaces. */
export function textOf(segments: readonly Segment[]): string {
  return segments.map((segment) => segment.text).join(" ");
}

/** Characters as a reader counts them: code points, so an emoji is one, not two UTF-16 units. */
export function characterCount(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/**
 * The transcript cut into chunks of at most `size` characters for a language model. Consecutive
 * segments are joined by single spaces while the joined text fits; a segment longer than `size`
 * is cut at spaces into chunks of its own, their times shared out by characters. A word longer
 * than `size` stays whole in a chunk of its own: cutting it would make the chunks, joined by
 * spaces, differ from `text`, which they equal exactly.
 */
export function chunksOf(segments: readonly Segment[], size: number): TranscriptChunk[] {
  const chunks: TranscriptChunk[] = [];
  let open: { text: string; length: number; start: number; end: number } | null = null;
  const close = () => {
    if (open) chunks.push({ text: open.text, start: milliseconds(open.start), end: milliseconds(open.end) });
    open = null;
  };
  for (const segment of segments) {
    const length = characterCount(segment.text);
    const end = segment.start + segment.duration;
    if (open !== null && open.length + 1 + length <= size) {
      open.text += ` ${segment.text}`;
      open.length += 1 + length;
      open.end = end;
      continue;
    }
    close();
    if (length <= size) {
      open = { text: segment.text, length, start: segment.start, end };
      continue;
    }
    // One push per piece: a 10 MiB segment cut into 200,000 pieces is more arguments than the stack holds.
    for (const piece of piecesOf(segment, length, size)) chunks.push(piece);
  }
  close();
  return chunks;
}

/**
 * A segment longer than `size` in pieces cut at spaces, each at most `size` characters unless
 * it is a single longer word; each piece's times are the segment's, shared by character offset.
 */
function piecesOf(segment: Segment, length: number, size: number): TranscriptChunk[] {
  const pieces: TranscriptChunk[] = [];
  const timeAt = (offset: number) => segment.start + (segment.duration * offset) / length;
  let text: string | null = null;
  let pieceLength = 0;
  let pieceOffset = 0;
  const close = () => {
    if (text === null) return;
    const endOffset = pieceOffset + pieceLength;
    pieces.push({ text, start: milliseconds(timeAt(pieceOffset)), end: milliseconds(timeAt(endOffset)) });
    pieceOffset = endOffset + 1;
  };
  for (const word of segment.text.split(" ")) {
    const wordLength = characterCount(word);
    if (text !== null && pieceLength + 1 + wordLength <= size) {
      text += ` ${word}`;
      pieceLength += 1 + wordLength;
      continue;
    }
    close();
    text = word;
    pieceLength = wordLength;
  }
  close();
  return pieces;
}

/** Times to the millisecond: what subtitles show, without the float noise of sums (2.31 + 2.95). */
function milliseconds(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}
