import { performance } from "node:perf_hooks";
import type { CaptionFormat } from "../src/adapters/youtube/caption-formats.ts";

/**
 * A fixture's caption body with its cues repeated `copies` times, each copy shifted past the end
 * of the one before: real tracks arrive ordered by start, and the parser sorts its output, so
 * copies sharing start times would time a different sort than YouTube's bodies cause.
 */
export function repeatCues(body: string, format: CaptionFormat, copies: number): string {
  if (format === "json3") return repeatJson3(body, copies);
  const cue = format === "srv3" ? /<p\b[^>]*>[\s\S]*?<\/p>/g : /<text\b[^>]*?(?:\/>|>[\s\S]*?<\/text>)/g;
  const cues = [...body.matchAll(cue)];
  const first = cues[0];
  const last = cues.at(-1);
  if (!first || !last) throw new Error(`the ${format} fixture has no cues`);
  const head = body.slice(0, first.index);
  const block = body.slice(first.index, last.index + last[0].length);
  const tail = body.slice(last.index + last[0].length);
  if (format === "srv3") {
    // srv3 times are whole milliseconds: `<p t="start" d="duration">`.
    const spanMs = Math.max(...cues.map((m) => Number(attribute(m[0], "t")) + Number(attribute(m[0], "d") ?? 0)));
    const copy = (k: number) => block.replace(/<p t="(\d+)"/g, (_, t: string) => `<p t="${Number(t) + k * spanMs}"`);
    return head + Array.from({ length: copies }, (_, k) => copy(k)).join("\n") + tail;
  }
  // Legacy XML times are seconds with decimals: `<text start="1.54" dur="4.16">`.
  const span = Math.max(...cues.map((m) => Number(attribute(m[0], "start")) + Number(attribute(m[0], "dur") ?? 0)));
  const copy = (k: number) =>
    block.replace(
      /<text start="([\d.]+)"/g,
      (_, start: string) => `<text start="${roundMs(Number(start) + k * span)}"`,
    );
  return head + Array.from({ length: copies }, (_, k) => copy(k)).join("\n    ") + tail;
}

/** As many copies as make the body at least `bytes` long. */
export function repeatCuesToSize(body: string, format: CaptionFormat, bytes: number): string {
  const oneCopy = Buffer.byteLength(repeatCues(body, format, 2)) - Buffer.byteLength(repeatCues(body, format, 1));
  return repeatCues(body, format, Math.ceil(bytes / oneCopy));
}

/** As many copies as make the track run at least `seconds`, as a video of that length would have. */
export function repeatCuesToDuration(body: string, format: CaptionFormat, seconds: number): string {
  const spanSeconds = trackSeconds(body, format);
  return repeatCues(body, format, Math.ceil(seconds / spanSeconds));
}

interface Json3Event {
  tStartMs?: number;
  dDurationMs?: number;
  segs?: unknown[];
}

function repeatJson3(body: string, copies: number): string {
  const parsed = JSON.parse(body) as { events?: Json3Event[] };
  const events = parsed.events ?? [];
  // Events without `segs` set up the window once, for the whole track; only the cues repeat.
  const setup = events.filter((event) => !event.segs);
  const cues = events.filter((event) => event.segs);
  const spanMs = Math.max(...cues.map((event) => (event.tStartMs ?? 0) + (event.dDurationMs ?? 0)));
  const repeated = Array.from({ length: copies }, (_, k) =>
    cues.map((event) => ({ ...event, tStartMs: (event.tStartMs ?? 0) + k * spanMs })),
  ).flat();
  return JSON.stringify({ ...parsed, events: [...setup, ...repeated] });
}

function trackSeconds(body: string, format: CaptionFormat): number {
  if (format === "json3") {
    const events = (JSON.parse(body) as { events?: Json3Event[] }).events ?? [];
    return (
      Math.max(...events.filter((e) => e.segs).map((event) => (event.tStartMs ?? 0) + (event.dDurationMs ?? 0))) / 1000
    );
  }
  if (format === "srv3") {
    const cues = [...body.matchAll(/<p\b[^>]*>/g)];
    return Math.max(...cues.map((m) => Number(attribute(m[0], "t")) + Number(attribute(m[0], "d") ?? 0))) / 1000;
  }
  const cues = [...body.matchAll(/<text\b[^>]*>/g)];
  return Math.max(...cues.map((m) => Number(attribute(m[0], "start")) + Number(attribute(m[0], "dur") ?? 0)));
}

function attribute(element: string, name: string): string | undefined {
  return new RegExp(`\\s${name}="([^"]*)"`).exec(element)?.[1];
}

function roundMs(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}

/** The median time of one call, over at least `minRuns` calls and `minMs` of calls, after `warmRuns` unmeasured ones. */
export function medianMs(work: () => unknown, options = { warmRuns: 3, minRuns: 10, minMs: 1_500 }): number {
  for (let i = 0; i < options.warmRuns; i += 1) work();
  const times: number[] = [];
  const started = performance.now();
  while (times.length < options.minRuns || performance.now() - started < options.minMs) {
    const before = performance.now();
    work();
    times.push(performance.now() - before);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] ?? Number.NaN;
}
