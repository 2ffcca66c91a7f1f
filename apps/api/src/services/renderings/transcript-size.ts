/** How much a transcript holds: what its reading costs to render and to send. */
export interface TranscriptSize {
  segments: number;
  /** UTF-8 bytes of the segments' texts joined by single spaces (`usage.bytes`). */
  textBytes: number;
}

/** Text that counts as one request of the allowance when a library entry is read. */
export const textBytesPerRequest = 256 * 1024;
/** Segments that count as one request of the allowance when a library entry is read. */
export const segmentsPerRequest = 8192;

/**
 * How many requests reading a transcript counts as against its allowance (docs/decisions.md,
 * rule 6): one per started 256 KiB of text or per started 8,192 segments, whichever is more,
 * and at least one. Rendering and sending grow with both.
 */
export function readWeight(size: TranscriptSize): number {
  return Math.max(1, Math.ceil(size.textBytes / textBytesPerRequest), Math.ceil(size.segments / segmentsPerRequest));
}

/**
 * Whether the event loop may render the transcript itself: a few milliseconds of work at most.
 * A larger one is rendered on a rendering thread (`TranscriptRenderer`).
 */
export function rendersInline(size: TranscriptSize): boolean {
  return size.segments <= 2000 && size.textBytes <= 64 * 1024;
}

/** The fewest characters a segment takes in the store's JSON text: `{"text": "", "start": 0, "duration": 0}, `. */
const leastSegmentJson = 41;

/**
 * The size of segments kept as JSON text, known without parsing them: their text's bytes, and
 * at most as many segments as the text has room for.
 */
export function serialisedSize(json: string, textBytes: number): TranscriptSize {
  return { segments: Math.ceil(json.length / leastSegmentJson), textBytes };
}
