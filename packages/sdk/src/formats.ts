import type { components } from "@verbatim/contract";

/** A timed piece of a transcript. */
export type Segment = components["schemas"]["Segment"];

/**
 * SubRip (`.srt`): numbered cues, `HH:MM:SS,mmm --> HH:MM:SS,mmm`, each followed by a blank line;
 * a cue's text is one line, with `<` and `>` written `&lt;` and `&gt;`. The server's
 * `format: "srt"` is this function's output.
 */
export function toSrt(segments: readonly Segment[]): string {
  return cuesOf(segments)
    .map(
      (cue, index) =>
        `${index + 1}\n${clock(cue.start, ",")} --> ${clock(cue.end, ",")}\n${escapeSrtText(cue.text)}\n\n`,
    )
    .join("");
}

/**
 * WebVTT (`.vtt`): the `WEBVTT` header and a blank line, then cues `HH:MM:SS.mmm --> HH:MM:SS.mmm`,
 * each followed by a blank line; without cues, the header line alone (parsers such as the
 * `subtitle` package expect a cue after the blank line). A segment that carries `words` (the
 * server's `words: true`) has a cue timestamp (`<HH:MM:SS.mmm>`) before each word that starts
 * after the cue, after the word before it, and before the cue ends, as WebVTT allows: players
 * that highlight words read them. The server's `format: "vtt"` is this function's output.
 */
export function toVtt(segments: readonly Segment[]): string {
  const cues = cuesOf(segments).map(
    (cue) => `${clock(cue.start, ".")} --> ${clock(cue.end, ".")}\n${vttCueText(cue)}\n\n`,
  );
  return cues.length === 0 ? "WEBVTT\n" : `WEBVTT\n\n${cues.join("")}`;
}

interface Cue {
  start: number;
  end: number;
  text: string;
  /** The segment's timed words, each on one line, when it carries any. */
  words: { text: string; start: number }[] | null;
}

/**
 * One cue per segment, its text on one line (`oneLine`). A segment without words has no cue: a
 * cue's text cannot be empty in either format, since a blank line ends the cue.
 */
function cuesOf(segments: readonly Segment[]): Cue[] {
  const cues: Cue[] = [];
  for (const segment of segments) {
    const text = oneLine(segment.text);
    const words = (segment.words ?? [])
      .map((word) => ({ text: oneLine(word.text), start: word.start }))
      .filter((word) => word.text !== "");
    if (text !== "") {
      const end = segment.start + segment.duration;
      cues.push({ start: segment.start, end, text, words: words.length > 0 ? words : null });
    }
  }
  return cues;
}

/**
 * A WebVTT cue's text: the words, each after the cue timestamp of its start where WebVTT admits
 * one (after the cue's start and the timestamp before it, before the cue's end, to the millisecond).
 */
function vttCueText(cue: Cue): string {
  if (cue.words === null) return escapeVttText(cue.text);
  const cueEnd = Math.round(cue.end * 1000);
  let latest = Math.round(cue.start * 1000);
  return cue.words
    .map((word) => {
      const at = Math.round(word.start * 1000);
      const timestamp = at > latest && at < cueEnd ? `<${clock(word.start, ".")}>` : "";
      if (timestamp) latest = at;
      return `${timestamp}${escapeVttText(word.text)}`;
    })
    .join(" ");
}

/**
 * WebVTT cue text is markup: `&`, `<` and `>` are written as character references, which also
 * keeps the text free of `-->`, which a cue's text must not contain.
 */
function escapeVttText(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

/**
 * SubRip has no escape of its own, and its readers take `<` for the start of a tag (`<i>`,
 * `<font>`). So `<` and `>` are written as HTML's references `&lt;` and `&gt;`, which the
 * service's own SubRip reader decodes, and which keep `-->` out of the text. `&` stays as written:
 * it opens nothing.
 */
function escapeSrtText(text: string): string {
  return text.replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

/** Plain text: the segments joined by spaces, or one line per segment prefixed `[mm:ss]` with `timestamps`. */
export function toText(segments: readonly Segment[], options: { timestamps?: boolean } = {}): string {
  if (!options.timestamps) return segments.map((segment) => oneLine(segment.text)).join(" ");
  return segments.map((segment) => `[${shortClock(segment.start)}] ${oneLine(segment.text)}`).join("\n");
}

/**
 * What a reader may take for a line break or a blank: JavaScript's `\s`, and the separators that
 * Python's `str.splitlines()` breaks lines at besides (U+001C to U+001E, U+0085).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these control characters are what it finds.
const blanks = /[\s\x1c-\x1e\x85]+/g;

/** Every other control character (C0, DEL, C1): a terminal or a player may act on it. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these control characters are what it finds.
const controls = /[^\P{Cc}\s\x1c-\x1e\x85]/gu;

/**
 * A segment's text as one line of words: control characters removed, and each run of blanks (line
 * breaks of every kind included) one space. So no text can end a cue, start another, or reach a
 * terminal as a command. The server removes the same controls and line breaks when it reads a
 * transcript, so this changes only what was stored before it did.
 */
function oneLine(text: string): string {
  return text.replace(controls, "").replace(blanks, " ").trim();
}

/** `HH:MM:SS,mmm` (or `.mmm`), rounded to the millisecond; hours grow past two digits when they must. */
function clock(seconds: number, fractionSeparator: "," | "."): string {
  const totalMs = Math.max(0, Math.round(seconds * 1000));
  const hours = Math.floor(totalMs / 3_600_000);
  const minutes = Math.floor(totalMs / 60_000) % 60;
  const secs = Math.floor(totalMs / 1000) % 60;
  const ms = totalMs % 1000;
  return `${pad(hours, 2)}:${pad(minutes, 2)}:${pad(secs, 2)}${fractionSeparator}${pad(ms, 3)}`;
}

function shortClock(seconds: number): string {
  const total = Math.max(0, Math.floor(seconds));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor(total / 60) % 60;
  const secs = total % 60;
  return hours > 0 ? `${hours}:${pad(minutes, 2)}:${pad(secs, 2)}` : `${pad(minutes, 2)}:${pad(secs, 2)}`;
}

function pad(value: number, width: number): string {
  return String(value).padStart(width, "0");
}
