// `npx tsx bench/jobs.ts`: speech recognition jobs completed per minute through the API on embedded
// PGlite, with the default worker count (VERBATIM_WORKERS, 2) and the default job settings:
// VERBATIM_BENCH_JOBS (default 20) requests for jfk.wav (11 s) with inline transcription off,
// each polled until it completes. Every job downloads, probes, transcribes and charges for real.
import { createReadStream } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { availableParallelism } from "node:os";
import { audioFixture } from "@verbatim/testkit/fake-podcast-host";
import { createSpeechEngine } from "../src/adapters/asr/index.ts";
import { createApp } from "../src/app.ts";
import { buildWebAdapters } from "../src/assembly/adapters.ts";
import { createPlatform } from "../src/assembly/platform.ts";
import { buildServices } from "../src/assembly/services.ts";
import { jobsConfigFrom, speechEngineConfigFrom } from "../src/config.ts";
import { createLogger } from "../src/logger.ts";
import { ServiceMetrics } from "../src/metrics.ts";
import { startJobQueue } from "../src/queue/job-queue.ts";
import { openEmbeddedStore } from "../src/store/database.ts";
import { PgBossTranscriptionQueue, transcriptionQueues } from "../src/workers/transcription-queue.ts";
import { startTranscriptionWorker } from "../src/workers/transcription-worker.ts";

const jobCount = Number(process.env.VERBATIM_BENCH_JOBS || 20);
const retryLimit = 2;

async function main(): Promise<void> {
  const settings = jobsConfigFrom(process.env);
  const logger = createLogger("warn");
  const now = () => new Date();
  const store = await openEmbeddedStore();
  const platform = await createPlatform(store, { now });
  const boss = await startJobQueue(
    store,
    transcriptionQueues({ heartbeatSeconds: settings.heartbeatSeconds, retryLimit }),
    logger,
  );
  // The media server is on loopback, a private address admitted here.
  const web = buildWebAdapters({ allowPrivateTargets: true }, { logger, spotify: null });
  const engine = createSpeechEngine(speechEngineConfigFrom(process.env));
  const services = buildServices(
    { ...web, engine },
    {
      platform,
      now,
      logger,
      allowPrivateTargets: true,
      jobs: { queue: new PgBossTranscriptionQueue(boss), inlineAudioSeconds: 0, maxQueuedJobs: settings.maxQueuedJobs },
    },
  );
  await startTranscriptionWorker(boss, services.speechJobs, {
    workers: settings.workers,
    pollSeconds: settings.pollSeconds,
    retryLimit,
    jobSlots: platform.jobSlots,
    logger,
  });
  const media = createServer((_request, response) => {
    response.writeHead(200, { "content-type": "audio/wav" });
    createReadStream(audioFixture("whisper-cpp/jfk.wav")).pipe(response);
  });
  await new Promise<void>((resolve) => media.listen(0, "127.0.0.1", resolve));
  const mediaOrigin = `http://127.0.0.1:${(media.address() as AddressInfo).port}`;
  const api = createApp({
    config: { version: "bench" },
    logger,
    now,
    platform,
    services,
    metrics: new ServiceMetrics(),
  });
  const listening = api.listen(0, "127.0.0.1");
  await new Promise<void>((resolve) => listening.once("listening", () => resolve()));
  const baseUrl = `http://127.0.0.1:${(listening.address() as AddressInfo).port}`;
  // Scale: enough requests per minute and credits that only the workers bound the rate.
  const { key } = await platform.accounts.create({ plan: "scale", name: "bench" });
  const headers = { authorization: `Bearer ${key.key}`, "content-type": "application/json" };

  console.log(
    `Verbatim benchmark: speech recognition jobs. ${jobCount} jobs of jfk.wav (11 s) through the API on PGlite, ` +
      `${settings.workers} workers (VERBATIM_WORKERS), polling every ${settings.pollSeconds} s, ${engine.info.engine} ` +
      `${engine.info.model}; Node ${process.version} on ${availableParallelism()} cores.`,
  );
  const started = performance.now();
  const latencies: number[] = [];
  await Promise.all(
    Array.from({ length: jobCount }, async (_, index) => {
      const submitted = performance.now();
      // A distinct address per job: the same media would be served from the store instead of transcribed.
      const accepted = (await (
        await fetch(`${baseUrl}/api/v2/transcripts/video`, {
          method: "POST",
          headers,
          body: JSON.stringify({ video: `${mediaOrigin}/jfk-${index}.wav` }),
        })
      ).json()) as { poll_url?: string };
      if (!accepted.poll_url) throw new Error(`job ${index} was not accepted: ${JSON.stringify(accepted)}`);
      for (;;) {
        const job = (await (await fetch(`${baseUrl}${accepted.poll_url}`, { headers })).json()) as { status: string };
        if (job.status === "completed") break;
        if (job.status === "failed") throw new Error(`job ${index} failed: ${JSON.stringify(job)}`);
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
      latencies.push(performance.now() - submitted);
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const percentile = (share: number) =>
    (latencies[Math.min(latencies.length - 1, Math.floor(share * latencies.length))] ?? 0) / 1000;
  console.log(
    `${jobCount} jobs completed in ${seconds.toFixed(1)} s: ${((jobCount / seconds) * 60).toFixed(0)} jobs per minute ` +
      `(${((jobCount * 11) / seconds).toFixed(0)} s of audio per second); ` +
      `submit-to-completed p50 ${percentile(0.5).toFixed(1)} s, max ${percentile(1).toFixed(1)} s.`,
  );

  await boss.stop({ graceful: true, timeout: 10_000, close: false });
  listening.close();
  media.close();
  await web.audioSources.close();
  await web.feedListings.close();
  platform.slots.close();
  await store.close();
}

await main();
