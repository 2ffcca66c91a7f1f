// `npx tsx bench/youtube.ts` (part of `pnpm bench`): requests per second and p50/p99 latency of
// POST /api/v2/transcripts/video served from our store, on PGlite and on PostgreSQL, beside a bare
// Express route answering the same body, from one run; then the caption parser's milliseconds per
// MB of srv3, json3 and legacy XML bodies beside a bare JSON.parse of as many bytes.

import { FakeYoutube, fixture, fromFixture } from "@verbatim/testkit/fake-youtube";
import { type CaptionFormat, detectCaptionFormat, parseCaptionBody } from "../src/adapters/youtube/caption-formats.ts";
import { plans } from "../src/services/accounts/plans.ts";
import { unlimitedAllowances } from "./bench-accounts.ts";
import { medianMs, repeatCuesToDuration, repeatCuesToSize } from "./caption-bodies.ts";
import { connections, HttpBench, positiveNumber, reportFailedRuns, settingsLine } from "./http-bench.ts";
import type { TargetName } from "./protocol.ts";
import { printReport, type Run, summarise, textTable, upstreamColumn, verdict, wholeNumber } from "./report.ts";
import type { YoutubeTargetSpec } from "./youtube-target-server.ts";

/** Size of each caption body the parser is timed on. */
const captionMegabytes = positiveNumber("VERBATIM_BENCH_CAPTION_MB", 2);
const MEGABYTE = 1_000_000;

/** The operation under load (bench/youtube-target-server.ts serves it). */
const transcriptPath = "/api/v2/transcripts/video";

/**
 * The store hit's floor: a bare Express route with node-postgres doing the same durable charge
 * (balance and ledger) in one statement and answering the same body. The goal: at least this
 * share of its throughput on PostgreSQL, and p99 at most `maxStoreHitTail` x p50 on both engines.
 */
const storeHitShareOfDurable = 0.7;
const maxStoreHitTail = 3;

/** The recorded video with a manual English track (test/youtube/transcripts-video.test.ts registers it the same way). */
const video = {
  id: "GJLlxj_dtq8",
  player: "youtube-transcript-api/youtube.innertube.json.static",
  captions: "authored/GJLlxj_dtq8.en.srv3.xml",
} as const;
const requestBody = JSON.stringify({ video: video.id, language: "en" });

const bench = new HttpBench<YoutubeTargetSpec>({
  server: new URL("./youtube-target-server.ts", import.meta.url),
  labels: { embedded: "transcript from store, PGlite", postgres: "transcript from store, PostgreSQL" },
});

async function main(): Promise<number> {
  bench.printHeader(
    "POST /api/v2/transcripts/video from the store, and caption parsing",
    "the load generator (this process, also serving the fake YouTube), each target server (a child process) and " +
      "PostgreSQL share every core, so absolute figures sit below the pinned setup of docs/performance.md; compare the ratios.",
  );
  await bench.printForeignLoad();

  console.log("");
  printCaptionParsing();

  console.log("");
  console.log(settingsLine);
  const highest = plans.scale;
  console.log(
    `Every plan caps this load: at most ${highest.requestsPerMinute} requests per minute and ${highest.extractionSlots} ` +
      `extraction slots per account (scale, the highest). So the load is spread over ${connections} accounts on scale with ` +
      "unlimited credits, one connection each (at most one request in flight per account, within its slots), and the " +
      "scale plan's requests_per_minute is raised in each target's throwaway database, as bench/run.ts does for /me; " +
      "authentication, admission, slots and the credit charge all run.",
  );

  const fake = await FakeYoutube.start();
  bench.onCleanUp(() => fake.close());
  const player = JSON.parse(fixture(video.player)) as { videoDetails?: { lengthSeconds?: string } };
  const videoSeconds = Number(player.videoDetails?.lengthSeconds ?? 300);
  // A recorded track holds three cues; repeated over the video's length it has the size of a real one.
  const captionBody = repeatCuesToDuration(fixture(video.captions), "srv3", videoSeconds);
  fake
    .player(video.id, fromFixture(video.player))
    .timedtext({ v: video.id, lang: "en" }, { body: captionBody, contentType: "text/xml" });

  const database = await bench.openDatabase();

  console.log("Starting target servers...");
  const transcriptTargets: TargetName[] = database ? ["embedded", "postgres"] : ["embedded"];
  await bench.startCompiled(
    transcriptTargets,
    (name) => ({ name, ...(name === "postgres" && database ? { databaseUrl: database.url } : {}) }),
    {
      accounts: connections,
      credits: null,
      // Benchmark-only setting, as bench/run.ts's: every plan allows at most 900 requests per minute
      // per account, which the load uses up in seconds, and a 429 is cheaper than a 200.
      planSetting: unlimitedAllowances,
      env: { VERBATIM_YOUTUBE_ORIGIN: fake.origin },
    },
  );

  // Warm each store with one fetch through the fake YouTube; every later request is served from the store.
  let responseBody: unknown = null;
  let responseText = "";
  for (const name of transcriptTargets) {
    const target = bench.target(name);
    const before = fake.requests.length;
    const body = await fetchTranscript(target.url, target.apiKeys[0]);
    const upstream = fake.requests.slice(before).map((request) => request.path);
    console.log(
      `  ${bench.labels[name]}: warmed with one fetch; fake YouTube got ${upstream.length} request(s) (${upstream.join(", ")}); ` +
        `${body.segments} segments, response ${wholeNumber(body.bytes)} bytes.`,
    );
    responseBody ??= body.json;
    responseText ||= body.text;
  }
  const floors: TargetName[] = database ? ["bare", "durable"] : ["bare"];
  await bench.start(floors, (name) => ({
    name,
    body: name === "durable" ? responseText : responseBody,
    ...(name === "durable" && database ? { databaseUrl: database.url } : {}),
  }));

  const runs = await bench.measure({
    order: [...floors, ...transcriptTargets],
    path: transcriptPath,
    method: "POST",
    body: requestBody,
    referenceKeys: bench.target("embedded").apiKeys,
    upstream: { name: "fake YouTube", requests: () => fake.requests.length },
  });

  printReport(runs, bench.labels, {
    last: upstreamColumn,
    notes: [
      "queries/req: statements sent to the database driver in the measured window / requests the server received in it. " +
        "upstream: requests the fake YouTube got during the run's warm-up and measured load (0: every answer came from the store).",
    ],
    heading: `Goals (docs/performance.md: round trips, p99 at most ${maxStoreHitTail}x p50 on both engines), on the means:`,
    goals: { maxRoundTrips: 2, maxTailRatio: maxStoreHitTail },
  });

  printDurableGoal(runs);

  const refetched = runs.filter((run) => (run.upstreamRequests ?? 0) > 0);
  if (refetched.length > 0) {
    console.error(
      `\nThe measurement is not valid: ${refetched.length} run(s) reached the fake YouTube, so not every answer came from the store.`,
    );
  }
  const failed = reportFailedRuns(runs);
  return failed || refetched.length > 0 ? 1 : 0;
}

/** One transcript request; fails unless it answers 200 with the captions. */
async function fetchTranscript(
  url: string,
  apiKey: string | undefined,
): Promise<{ json: unknown; text: string; bytes: number; segments: number }> {
  const response = await fetch(`${url}${transcriptPath}`, {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: requestBody,
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`POST ${transcriptPath} answered ${response.status}: ${text}`);
  const json = JSON.parse(text) as { data?: { source?: string; segments?: unknown[] } };
  if (json.data?.source !== "captions") throw new Error(`expected a caption transcript, got ${text.slice(0, 300)}`);
  return { json, text, bytes: Buffer.byteLength(text), segments: json.data.segments?.length ?? 0 };
}

/** The goal against the durable-charge floor, on the means of the run: PostgreSQL only, where the floor runs. */
function printDurableGoal(runs: Run[]): void {
  const summaries = summarise(runs);
  const durable = summaries.find((summary) => summary.target === "durable");
  const storeHit = summaries.find((summary) => summary.target === "postgres");
  if (!durable || !storeHit) return;
  console.log(
    `\nGoal (a transcript from the store at ${storeHitShareOfDurable}x or more of the bare durable-charge route on ` +
      "PostgreSQL), on the means:",
  );
  const share = storeHit.requestsPerSecond / durable.requestsPerSecond;
  console.log(
    `  ${verdict(
      share >= storeHitShareOfDurable,
      `${bench.labels.postgres}: ${wholeNumber(storeHit.requestsPerSecond)} req/s = ${share.toFixed(2)} x the durable-charge route ` +
        `${wholeNumber(durable.requestsPerSecond)} req/s (CPU ms/req: server ${perRequestMs(storeHit.serverCpuMs, storeHit.requests)} ` +
        `+ postgres ${perRequestMs(storeHit.postgresCpuMs ?? 0, storeHit.requests)}, against ` +
        `${perRequestMs(durable.serverCpuMs, durable.requests)} + ${perRequestMs(durable.postgresCpuMs ?? 0, durable.requests)})`,
    )}`,
  );
}

function perRequestMs(totalMs: number, requests: number): string {
  return requests === 0 ? "-" : (totalMs / requests).toFixed(2);
}

/** The caption bodies the parser is timed on: the recorded or authored fixtures, their cues repeated. */
const captionBodies: { label: string; path: string; format: CaptionFormat }[] = [
  { label: "srv3, manual track", path: "authored/GJLlxj_dtq8.en.srv3.xml", format: "srv3" },
  { label: "srv3, automatic (word-timed)", path: "authored/GJLlxj_dtq8.en-asr.srv3.xml", format: "srv3" },
  { label: "json3", path: "authored/F1xioXWb8CY.en.json3", format: "json3" },
  { label: "legacy transcript XML", path: "youtube-transcript-api/transcript.xml.static", format: "legacy-xml" },
];

/** Times `parseCaptionBody` on each format, and a bare JSON.parse of the json3 body as the baseline. */
function printCaptionParsing(): void {
  console.log(
    `Caption parsing: parseCaptionBody (src/adapters/youtube/caption-formats.ts) on ~${captionMegabytes} MB bodies made by ` +
      "repeating the fixtures' cues, median of at least 10 calls and 1.5 s after 3 unmeasured ones, in this process " +
      "before any server starts. MB = 10^6 bytes of UTF-8.",
  );
  const bodies = captionBodies.map((entry) => {
    const body = repeatCuesToSize(fixture(entry.path), entry.format, captionMegabytes * MEGABYTE);
    if (detectCaptionFormat(body) !== entry.format)
      throw new Error(`${entry.label}: the built body is not ${entry.format}`);
    return { ...entry, body };
  });
  const json3 = bodies.find((entry) => entry.format === "json3")?.body ?? "";
  const jsonMegabytes = Buffer.byteLength(json3) / MEGABYTE;
  const jsonParseMsPerMb = medianMs(() => JSON.parse(json3)) / jsonMegabytes;
  const rows = [
    [
      "bare JSON.parse (baseline)",
      jsonMegabytes.toFixed(2),
      "-",
      "-",
      (jsonParseMsPerMb * jsonMegabytes).toFixed(1),
      jsonParseMsPerMb.toFixed(1),
      "1.00",
    ],
    ...bodies.map((entry) => {
      const megabytes = Buffer.byteLength(entry.body) / MEGABYTE;
      const segments = parseCaptionBody(entry.body).length;
      const ms = medianMs(() => parseCaptionBody(entry.body));
      return [
        entry.label,
        megabytes.toFixed(2),
        entry.path.split("/").at(-1) ?? entry.path,
        wholeNumber(segments),
        ms.toFixed(1),
        (ms / megabytes).toFixed(1),
        (ms / megabytes / jsonParseMsPerMb).toFixed(2),
      ];
    }),
  ];
  console.log(textTable(["caption body", "MB", "cues repeated from", "segments", "ms", "ms/MB", "× JSON.parse"], rows));
  console.log("The baseline parses the json3 body with JSON.parse alone: what any JSON document of that size costs.");
}

await bench.run(main);
