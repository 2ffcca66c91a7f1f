// `npx tsx bench/batch.ts` (part of `pnpm bench`): the wall time of a 50-item batch on the Pro
// plan (3 batch workers) against a fake YouTube that adds 200 ms to every answer, beside the ideal
// for 3 workers and beside the same 50 videos fetched one request at a time.
import { performance } from "node:perf_hooks";
import { fixture } from "@verbatim/testkit/fake-youtube";
import { plans } from "../src/services/accounts/plans.ts";
import { startYoutubeServer } from "../test/support/youtube-server.ts";
import { positiveNumber } from "./http-bench.ts";
import { textTable } from "./report.ts";

const items = positiveNumber("VERBATIM_BENCH_BATCH_ITEMS", 50);
const upstreamLatencyMs = positiveNumber("VERBATIM_BENCH_UPSTREAM_MS", 200);
/** Single requests timed to learn one item's time through the whole service. */
const singleSamples = 5;
const plan = plans.pro;

/** The recorded video every fake video is made from: its player response and its manual English track. */
const recorded = {
  id: "GJLlxj_dtq8",
  player: fixture("youtube-transcript-api/youtube.innertube.json.static"),
  captions: fixture("authored/GJLlxj_dtq8.en.srv3.xml"),
};

/** An 11-character id per fake video, so no answer comes from the store. */
function videoId(set: string, index: number): string {
  return `${set}${String(index).padStart(11 - set.length, "0")}`;
}

async function main(): Promise<void> {
  const yt = await startYoutubeServer({
    plan: "pro",
    credits: null,
    upstream: { attemptTimeoutMs: 10_000, budgetMs: 30_000 },
  });
  try {
    const sets = { batch: "bA", single: "sA", sample: "tA" };
    for (const set of Object.values(sets)) {
      for (let index = 0; index < items; index++) {
        const id = videoId(set, index);
        yt.fake
          .player(id, { body: recorded.player.replaceAll(recorded.id, id) })
          .timedtext({ v: id, lang: "en" }, { body: recorded.captions, contentType: "text/xml" });
      }
    }
    yt.fake.latencyMs = upstreamLatencyMs;
    const { client } = yt.server;

    const samples: number[] = [];
    for (let index = 0; index < singleSamples; index++) {
      const started = performance.now();
      const { response } = await client.POST("/transcripts/video", { body: { video: videoId(sets.sample, index) } });
      if (response.status !== 200) throw new Error(`a single request answered ${response.status}`);
      samples.push(performance.now() - started);
    }
    const itemMs = samples.sort((a, b) => a - b)[Math.floor(samples.length / 2)] ?? 0;
    const upstreamBefore = yt.fake.requests.length;

    const batchStarted = performance.now();
    const { data, response } = await client.POST("/transcripts/batch", {
      body: { video_ids: Array.from({ length: items }, (_, index) => videoId(sets.batch, index)) },
    });
    const batchMs = performance.now() - batchStarted;
    const ok = data?.data.results.filter((row) => row.outcome === "ok").length ?? 0;
    if (response.status !== 200 || ok !== items)
      throw new Error(`the batch answered ${response.status}, ${ok} ok rows`);
    const upstreamPerItem = (yt.fake.requests.length - upstreamBefore) / items;

    const oneByOneStarted = performance.now();
    for (let index = 0; index < items; index++) {
      const { response: single } = await client.POST("/transcripts/video", {
        body: { video: videoId(sets.single, index) },
      });
      if (single.status !== 200) throw new Error(`request ${index} answered ${single.status}`);
    }
    const oneByOneMs = performance.now() - oneByOneStarted;

    const idealMs = Math.ceil(items / plan.batchWorkers) * itemMs;
    const rows = [
      ["ideal for 3 workers", seconds(idealMs), perSecond(items, idealMs), "1.00"],
      [`batch (${plan.batchWorkers} workers)`, seconds(batchMs), perSecond(items, batchMs), ratio(batchMs, idealMs)],
      ["one request at a time", seconds(oneByOneMs), perSecond(items, oneByOneMs), ratio(oneByOneMs, idealMs)],
    ];
    console.log(
      `POST /api/v2/transcripts/batch: ${items} distinct caption videos on the ${plan.name} plan, ` +
        `fake YouTube +${upstreamLatencyMs} ms on every answer (${upstreamPerItem.toFixed(1)} upstream requests per item), ` +
        "PGlite, server and fake in this process.",
    );
    console.log(
      `One item through the service (median of ${singleSamples} single requests): ${itemMs.toFixed(0)} ms. ` +
        `Ideal = ceil(${items} / ${plan.batchWorkers}) × that.`,
    );
    console.log(textTable(["run", "wall s", "items/s", "× ideal"], rows));
    console.log(`Goal: the batch within 1.3× of the ideal: ${batchMs <= idealMs * 1.3 ? "met" : "NOT met"}.`);
  } finally {
    await yt.close();
  }
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(2);
}

function perSecond(count: number, ms: number): string {
  return (count / (ms / 1000)).toFixed(1);
}

function ratio(ms: number, idealMs: number): string {
  return (ms / idealMs).toFixed(2);
}

await main();
