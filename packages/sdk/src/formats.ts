import type { components } from "@verbatim/contract";

/** A timed piece of a transcript. */
export type Segment = components["schemas"]["Segment"];

/** SubRip (`.srt`): numbered cues with `00:00:01,500 --> 00:00:04,000` times. */
export function toSrt(segments: readonly Segment[]): string {
  return segments
    .map((segment, index) => {
      const times = `${clock(segment.start, ",")} --> ${clock(segment.start + segment.duration, ",")}`;
      return `${index + 1}\n${times}\n${cueText(segment.text)}\n`;
    })
    .join("\n");
}

/** WebVTT (`.vtt`): a `WEBVTT` header and cues with `00:00:01.500 --> 00:00:04.000` times. */
export function toVtt(segments: readonly Segment[]): string {
  const cues = segments.map((segment) => {
    const times = `${clock(segment.start, ".")} --> ${clock(segment.start + segment.duration, ".")}`;
    return `${times}\n${cueText(segment.text).replaceAll("-->", "->")}\n`;
  });
  return ["WEBVTT\n", ...cues].join("\n");
}

/** Plain text: the segments joined by spaces, or one line per segment prefixed `[mm:ss]` with `timestamps`. */
export function toText(segments: readonly Segment[], options: { timestamps?: boolean } = {}): string {
  if (!options.timestamps) return segments.map((segment) => oneLine(segment.text)).join(" ");
  return segments.map((segment) => `[${shortClock(segment.start)}] ${oneLine(segment.text)}`).join("\n");
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** A cue's text on as many lines as it has, without the blank lines that would end the cue early. */
function cueText(text: string): string {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line.length > 0)
    .join("\n");
}

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
