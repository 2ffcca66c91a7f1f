import { attributesOf, elementsNamed, withoutTags } from "../parsing/markup.ts";

/** One timed piece of a caption track, in seconds. */
export interface CaptionSegment {
  start: number;
  duration: number;
  text: string;
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
 * cues dropped, and the segments come back ordered by start.
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
  events?: Array<{ tStartMs?: number; dDurationMs?: number; segs?: Array<{ utf8?: string }> }>;
}

function parseJson3(body: string): CaptionSegment[] {
  let parsed: Json3Body;
  try {
    parsed = JSON.parse(body) as Json3Body;
  } catch {
    throw new CaptionFormatError("The json3 caption body is not valid JSON.");
  }
  if (!Array.isArray(parsed.events)) throw new CaptionFormatError("The json3 caption body has no events.");
  return parsed.events.flatMap((event) => {
    // Events without `segs` only position the window; `\n`-only segments are line breaks of auto captions.
    const text = cleanText((event.segs ?? []).map((seg) => seg.utf8 ?? "").join(""));
    if (!text || event.tStartMs === undefined) return [];
    return [{ start: event.tStartMs / 1000, duration: (event.dDurationMs ?? 0) / 1000, text }];
  });
}

function parseSrv3(body: string): CaptionSegment[] {
  return [...elementsNamed(body, "p")].flatMap((element) => {
    const attributes = attributesOf(element.attributes);
    const start = Number(attributes.t);
    const text = cleanText(decodeEntities(withoutTags(element.content ?? "")));
    if (!text || !Number.isFinite(start)) return [];
    return [{ start: start / 1000, duration: Number(attributes.d ?? 0) / 1000, text }];
  });
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
    }))
    .sort((a, b) => a.start - b.start);
}

function roundMs(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}
