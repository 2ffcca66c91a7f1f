import { move } from "piscina";
import { type StoredPassage, segmentsOfPassages } from "../kept/index.ts";
import { type RenderingRequest, renderTranscript, type Segment } from "./transcript-renderings.ts";

/**
 * A transcript's words as JSON text, the form in which they cross to a rendering thread without
 * being parsed on the event loop: pages of segments (`Segment[]`, as the store keeps them), or
 * pages of a library entry's passages (`StoredPassage[]`) with the media's duration.
 */
export type TranscriptJson =
  | { kind: "segments"; pages: string[] }
  | { kind: "passages"; pages: string[]; duration: number | null };

/** What a rendering thread is asked: the words, and how to write them out. */
export interface RenderingTask {
  words: TranscriptJson;
  request: RenderingRequest;
}

/**
 * The renderings' fields as JSON text without the object's braces, in UTF-8: what the envelope
 * carries after the transcript's other fields (`"format":"srt","subtitles":"...","chunks":[...]`).
 * They are `renderTranscript`'s, serialised as the event loop would serialise them.
 */
export function renderFieldsJson({ words, request }: RenderingTask): Uint8Array {
  const json = JSON.stringify(renderTranscript(segmentsOf(words), request));
  // A fresh array owns its buffer, which moves to the event loop's thread instead of being copied.
  return move(new TextEncoder().encode(json.slice(1, -1))) as Uint8Array;
}

/** The segments the JSON text holds. */
export function segmentsOf(words: TranscriptJson): Segment[] {
  if (words.kind === "segments") return words.pages.flatMap((page) => JSON.parse(page) as Segment[]);
  const passages = words.pages.flatMap((page) => JSON.parse(page) as StoredPassage[]);
  return segmentsOfPassages(passages, words.duration);
}
