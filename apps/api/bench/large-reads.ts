// `npx tsx bench/large-reads.ts [embedded|postgres]`: how long the event loop is held while the
// API answers reads of one very large transcript (issue 31: 7.5 MB of text read back as SubRip
// with chunks of 100 characters answered 21 MB and held the event loop 1.2-2.0 s). For each
// format it prints the answer's time and size and the longest event-loop delay seen while it
// ran (perf_hooks.monitorEventLoopDelay), then the latency of GET /health asked every 10 ms
// while two readers read the entry at once. Goal: no delay over about 50 ms, whatever the size.
// VERBATIM_BENCH_LARGE_SEGMENTS sets the segments (default 250,000, about 7.5 MB of text).
import { get } from "node:http";
import { availableParallelism, loadavg } from "node:os";
import { type IntervalHistogram, monitorEventLoopDelay, performance } from "node:perf_hooks";
import { listenOnLoopback } from "@verbatim/testkit/listen";
import { createApp } from "../src/app.ts";
import { createPlatform } from "../src/assembly/platform.ts";
import { buildServices } from "../src/assembly/services.ts";
import type { AppDeps } from "../src/http/app-deps.ts";
import { createLogger } from "../src/logger.ts";
import { ServiceMetrics } from "../src/metrics.ts";
import type { FullTranscript } from "../src/services/kept/transcript-store.ts";
import type { Platform } from "../src/services/process-services.ts";
import { openEmbeddedStore, openPostgresStore } from "../src/store/database.ts";
import { mediaTranscript } from "../test/support/media-transcripts.ts";
import { positiveNumber } from "./http-bench.ts";
import { benchServerUrl, createBenchDatabase } from "./postgres.ts";
import { textTable } from "./report.ts";

const segmentCount = positiveNumber("VERBATIM_BENCH_LARGE_SEGMENTS", 250_000);
const words = "so what we found in the archive was this".split(" ");

/** About 30 bytes a segment, in two-second cues: a long stream's captions. */
function largeTranscript(): FullTranscript {
  const segments = Array.from({ length: segmentCount }, (_, index) => ({
    start: index * 2,
    duration: 2,
    text: `${words[index % words.length]} ${words[(index * 7) % words.length]} ${words[(index * 3) % words.length]} number ${index}`,
  }));
  return mediaTranscript({
    video_id: "bench-large",
    title: "A very large transcript",
    channel: null,
    language: "en",
    segments,
  });
}

async function record(platform: Platform, accountId: string, engine: string): Promise<void> {
  const transcript = largeTranscript();
  const started = performance.now();
  await platform.library.record(accountId, transcript);
  console.log(
    `${engine}: ${segmentCount.toLocaleString("en")} segments, ${(Buffer.byteLength(transcript.text) / 1e6).toFixed(1)} MB of text, recorded in ${((performance.now() - started) / 1000).toFixed(1)} s; load average ${loadavg()[0]?.toFixed(1)} on ${availableParallelism()} cores.`,
  );
}

/**
 * GETs a URL and counts the bytes of its answer as they arrive. The reader runs on the event loop
 * it measures: `fetch` would gather a body of many megabytes into one buffer there, tens of
 * milliseconds that are the client's, not the server's.
 */
function getCounting(url: string, headers: Record<string, string> = {}): Promise<{ status: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    get(url, { headers }, (response) => {
      let bytes = 0;
      response.on("data", (chunk: Buffer) => {
        bytes += chunk.length;
      });
      response.on("end", () => resolve({ status: response.statusCode ?? 0, bytes }));
      response.on("error", reject);
    }).on("error", reject);
  });
}

/** Runs `work` with the event loop's delay recorded at 1 ms resolution; the longest delay in ms. */
async function longestDelay<T>(
  work: () => Promise<T>,
): Promise<{ result: T; maxMs: number; histogram: IntervalHistogram }> {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  try {
    const result = await work();
    return { result, maxMs: histogram.max / 1e6, histogram };
  } finally {
    histogram.disable();
  }
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

async function main(): Promise<void> {
  const engine = process.argv[2] === "postgres" ? "postgres" : "embedded";
  const database = engine === "postgres" ? await createBenchDatabase(benchServerUrl()) : null;
  if (database && "unreachable" in database) throw new Error(`PostgreSQL is unreachable: ${database.unreachable}`);
  const store = database ? await openPostgresStore(database.url) : await openEmbeddedStore();
  const now = () => new Date();
  const logger = createLogger("silent");
  const platform = await createPlatform(store, { now });
  // A plan whose allowance the bench never exhausts: the reads' weight is not what is measured.
  const { account, key } = await platform.accounts.create({ plan: "scale", name: "bench large reads" });
  // Recorded in a function of its own, so that the transcript is garbage once in the store, as a server's would be.
  await record(platform, account.id, engine);
  const deps: AppDeps = {
    config: { version: "bench" },
    logger,
    now,
    platform,
    metrics: new ServiceMetrics(),
    services: buildServices({}, { platform, now, logger, allowPrivateTargets: false }),
  };
  const server = await listenOnLoopback(createApp(deps));
  const entryUrl = `${server.baseUrl}/api/v2/library/file:bench-large`;
  const read = async (query: string) => {
    const started = performance.now();
    const { status, bytes } = await getCounting(`${entryUrl}?${query}`, { authorization: `Bearer ${key.key}` });
    return { status, bytes, ms: performance.now() - started };
  };
  try {
    // The first read starts what later reads reuse (a rendering thread, the validator's schemas).
    await read("format=text");
    const rows: string[][] = [];
    for (const query of ["format=srt&chunk_size=100", "format=segments", "format=text", "format=vtt"]) {
      const { result, maxMs } = await longestDelay(() => read(query));
      rows.push([
        query,
        String(result.status),
        (result.bytes / 1e6).toFixed(1),
        Math.round(result.ms).toLocaleString("en"),
        maxMs.toFixed(0),
      ]);
    }
    console.log(textTable(["GET /library/{id}?", "status", "MB", "ms", "longest event-loop delay (ms)"], rows));

    const healthMs: number[] = [];
    let reading = true;
    const probe = async () => {
      while (reading) {
        const started = performance.now();
        await getCounting(`${server.baseUrl}/api/v2/health`);
        healthMs.push(performance.now() - started);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    };
    const { maxMs } = await longestDelay(async () => {
      const probing = probe();
      await Promise.all([read("format=srt&chunk_size=100"), read("format=srt&chunk_size=100")]);
      reading = false;
      await probing;
    });
    console.log(
      `Two readers of SubRip with chunks at once: GET /health median ${quantile(healthMs, 0.5).toFixed(0)} ms, ` +
        `p99 ${quantile(healthMs, 0.99).toFixed(0)} ms, max ${Math.max(...healthMs).toFixed(0)} ms over ${healthMs.length} checks; ` +
        `longest event-loop delay ${maxMs.toFixed(0)} ms.`,
    );
  } finally {
    await server.close();
    await deps.services.renderer.close();
    platform.slots.close();
    await store.close();
    await database?.drop();
  }
}

await main();
