import { attributesOf, elementsNamed, withoutTags } from "../parsing/markup.ts";
import { type TimedPiece, type TimedWord, wordsOfPieces } from "../parsing/words.ts";

/** One timed piece of a caption track, in seconds. */
export interface CaptionSegment {
  start: number;
  duration: number;
  text: string;
  /** Its words as the track timed them: automatic captions give each word's offset in its cue. */
  words?: TimedWord[];
}

/** The caption body formats YouTube's `/api/timedtext` serves. */
export type CaptionFormat = "srv3" | "json3" | "legacy-xml";

/** A caption body we could not read. */
export class CaptionFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CaptionFormatError";
  }
}

/**
 * Parses a caption body in whichever format it is: json3 (`{"events": ...}`), srv3
 * (`<timedtext format="3">` with `<p t d>` in milliseconds) or the legacy
 * `<transcript><text start dur>` XML in seconds. Entities are decoded, markup removed, empty
 * cues dropped, and the segments come back ordered by start. A cue that times its words (json3
 * `segs[].tOffsetMs`, srv3 `<s t>`: YouTube's automatic captions) gives its segment `words`.
 */
export function parseCaptionBody(body: string): CaptionSegment[] {
  const format = detectCaptionFormat(body);
  const parsed = format === "json3" ? parseJson3(body) : format === "srv3" ? parseSrv3(body) : parseLegacyXml(body);
  return monotonic(parsed);
}

/** Which format a caption body is in, from its first element. */
export function detectCaptionFormat(body: string): CaptionFormat {
  const head = body.trimStart();
  if (head.startsWith("{")) return "json3";
  if (/<timedtext[\s>]/.test(head)) return "srv3";
  if (/<transcript[\s>]/.test(head)) return "legacy-xml";
  throw new CaptionFormatError("The caption body is neither json3, srv3 nor the legacy transcript XML.");
}

interface Json3Body {
  events?: Array<{
    tStartMs?: number;
    dDurationMs?: number;
    segs?: Array<{ utf8?: string; tOffsetMs?: number }>;
  }>;
}

function parseJson3(body: string): CaptionSegment[] {
  let parsed: Json3Body;
  try {
    parsed = JSON.parse(body) as Json3Body;
  } catch {
    throw new CaptionFormatError("The json3 caption body is not valid JSON.");
  }
  if (!Array.isArray(parsed.events)) throw new CaptionFormatError("The json3 caption body has no events.");
  const cues = parsed.events.flatMap((event) => {
    // Events without `segs` only position the window; `\n`-only segments are line breaks of auto captions.
    const segs = Array.isArray(event.segs) ? event.segs : [];
    const start = event.tStartMs;
    if (typeof start !== "number") return [];
    const pieces = segs.map((seg) => ({
      text: typeof seg.utf8 === "string" ? seg.utf8 : "",
      start: (start + (typeof seg.tOffsetMs === "number" ? seg.tOffsetMs : 0)) / 1000,
    }));
    const timed = segs.some((seg) => typeof seg.tOffsetMs === "number");
    return [{ start: start / 1000, duration: (event.dDurationMs ?? 0) / 1000, pieces, timed }];
  });
  return segmentsOfCues(cues);
}

function parseSrv3(body: string): CaptionSegment[] {
  const cues = [...elementsNamed(body, "p")].flatMap((element) => {
    const attributes = attributesOf(element.attributes);
    const start = Number(attributes.t);
    if (!Number.isFinite(start)) return [];
    const spans = spansOf(element.content ?? "");
    const pieces = spans.map((span) => ({
      text: decodeEntities(withoutTags(span.markup)),
      start: (start + (span.offsetMs ?? 0)) / 1000,
    }));
    const timed = spans.some((span) => span.offsetMs !== null);
    return [{ start: start / 1000, duration: Number(attributes.d ?? 0) / 1000, pieces, timed }];
  });
  return segmentsOfCues(cues);
}

/** A cue as a timed format holds it: its text in pieces, and whether any piece carries a time of its own. */
interface PiecedCue {
  start: number;
  duration: number;
  pieces: TimedPiece[];
  timed: boolean;
}

/**
 * The segments of a track's cues, with words where a cue times its pieces (automatic captions); a
 * cue whose pieces carry no offset (a manual track's styling spans, a line of one seg) times no word.
 */
function segmentsOfCues(cues: readonly PiecedCue[]): CaptionSegment[] {
  return cues.flatMap((cue) => {
    const text = cleanText(cue.pieces.map((piece) => piece.text).join(""));
    if (!text) return [];
    const segment = { start: cue.start, duration: cue.duration, text };
    return [cue.timed ? { ...segment, words: wordsOfPieces(cue.pieces, cue.start + cue.duration) } : segment];
  });
}

/**
 * The spans of an srv3 paragraph in order: each `<s>` with its offset (`t`, milliseconds from the
 * paragraph's start), and the markup between them, which carries no offset of its own.
 */
function spansOf(content: string): Array<{ markup: string; offsetMs: number | null }> {
  const spans: Array<{ markup: string; offsetMs: number | null }> = [];
  let at = 0;
  for (const span of elementsNamed(content, "s")) {
    if (span.from > at) spans.push({ markup: content.slice(at, span.from), offsetMs: null });
    const offset = Number(attributesOf(span.attributes).t ?? Number.NaN);
    spans.push({ markup: span.content ?? "", offsetMs: Number.isFinite(offset) ? offset : null });
    at = span.to;
  }
  if (at < content.length) spans.push({ markup: content.slice(at), offsetMs: null });
  return spans;
}

function parseLegacyXml(body: string): CaptionSegment[] {
  return [...elementsNamed(body, "text", { selfClosing: true })].flatMap((element) => {
    const attributes = attributesOf(element.attributes);
    const start = Number(attributes.start);
    // The XML escapes the markup YouTube keeps in the text (`&lt;i>`), so decode, strip, then decode what the markup held.
    const text = cleanText(decodeEntities(withoutTags(decodeEntities(element.content ?? ""))));
    if (!text || !Number.isFinite(start)) return [];
    return [{ start, duration: Number(attributes.dur ?? 0), text }];
  });
}

const namedEntities: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };

/** Decodes the XML entities and the HTML ones YouTube uses in caption text. */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (entity, name: string) => {
    if (name.startsWith("#x") || name.startsWith("#X")) return codePoint(Number.parseInt(name.slice(2), 16), entity);
    if (name.startsWith("#")) return codePoint(Number.parseInt(name.slice(1), 10), entity);
    return namedEntities[name.toLowerCase()] ?? entity;
  });
}

function codePoint(value: number, fallback: string): string {
  return Number.isInteger(value) && value >= 0 && value <= 0x10ffff ? String.fromCodePoint(value) : fallback;
}

function cleanText(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** Ordered by start (stable for equal starts), with times rounded to milliseconds and never negative. */
function monotonic(segments: CaptionSegment[]): CaptionSegment[] {
  return segments
    .map((segment) => ({
      start: roundMs(Math.max(0, segment.start)),
      duration: roundMs(Math.max(0, Number.isFinite(segment.duration) ? segment.duration : 0)),
      text: segment.text,
      ...(segment.words ? { words: segment.words } : {}),
    }))
    .sort((a, b) => a.start - b.start);
}

function roundMs(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}
