import { setImmediate as nextTurn } from "node:timers/promises";
import { Piscina } from "piscina";
import type { RenderingTask, TranscriptJson } from "./transcript-rendering-tasks.ts";
import type { Segment } from "./transcript-renderings.ts";

/**
 * What a rendering thread loads. The sources need a thread that registers the TypeScript loader
 * first; the compiled build has the tasks as a JavaScript entry of its own beside the bundle.
 */
const threadEntry = import.meta.url.endsWith(".ts")
  ? "./transcript-rendering-thread.mjs"
  : "./transcript-rendering-tasks.js";

export interface TranscriptRendererOptions {
  /** Rendering threads at most; renderings beyond them wait their turn. Default 1. */
  threads?: number;
}

/**
 * Renders and serialises large transcripts on a thread of their own: megabytes of words cost
 * their own request time, and never hold the event loop that answers everyone else (a 7.5 MB
 * transcript as SubRip with chunks takes seconds). The renderings are those of
 * `renderTranscript`, byte for byte.
 */
export class TranscriptRenderer {
  private readonly pool: Piscina<RenderingTask, Uint8Array>;

  constructor(options: TranscriptRendererOptions = {}) {
    this.pool = new Piscina({
      filename: new URL(threadEntry, import.meta.url).href,
      name: "renderFieldsJson",
      minThreads: 0,
      maxThreads: options.threads ?? 1,
      // A thread takes a moment to load; keep it while large reads come.
      idleTimeout: 60_000,
    });
  }

  /** The JSON text of the renderings' fields (`renderFieldsJson`), in UTF-8. */
  render(task: RenderingTask): Promise<Uint8Array> {
    return this.pool.run(task);
  }

  /** Stops the threads; renderings still running fail. */
  async close(): Promise<void> {
    await this.pool.close({ force: true });
  }
}

/** Segments serialised per turn of the event loop: a few milliseconds of work. */
const segmentsPerTurn = 2000;

/**
 * Segments in memory as JSON text for a rendering thread, serialised a few thousand per turn of
 * the event loop: serialising them whole would hold it as long as rendering them does.
 */
export async function segmentsAsJson(segments: readonly Segment[]): Promise<TranscriptJson> {
  const pages: string[] = [];
  for (let first = 0; first < segments.length; first += segmentsPerTurn) {
    if (first > 0) await nextTurn();
    pages.push(JSON.stringify(segments.slice(first, first + segmentsPerTurn)));
  }
  return { kind: "segments", pages };
}
