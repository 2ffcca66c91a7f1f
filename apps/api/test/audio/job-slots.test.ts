import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPlatform } from "../../src/assembly/platform.ts";
import { buildServices } from "../../src/assembly/services.ts";
import { createLogger } from "../../src/logger.ts";
import type { PgBoss } from "../../src/queue/job-queue.ts";
import { startJobQueue } from "../../src/queue/job-queue.ts";
import { plans } from "../../src/services/accounts/plans.ts";
import { transcriptionQueues } from "../../src/workers/transcription-queue.ts";
import { startTranscriptionWorker, type TranscriptionWorker } from "../../src/workers/transcription-worker.ts";
import { type AudioServer, startAudioServer, testRetryLimit } from "./harness.ts";
import { fetchTranscript } from "./requests.ts";

/** A worker process of its own: its own queue client, its own slot holder, `workers` at once. */
interface WorkerProcess {
  boss: PgBoss;
  worker: TranscriptionWorker;
}

async function startWorkerProcess(server: AudioServer, workers: number): Promise<WorkerProcess> {
  const now = () => new Date();
  const logger = createLogger("silent");
  const platform = await createPlatform(server.store, { now });
  const boss = await startJobQueue(
    server.store,
    transcriptionQueues({ heartbeatSeconds: 10, retryLimit: testRetryLimit }),
    logger,
    { superviseIntervalSeconds: 1, monitorIntervalSeconds: 1 },
  );
  const { speechJobs } = buildServices(server.adapters, { ...server.settings, platform, now, logger });
  const worker = await startTranscriptionWorker(boss, speechJobs, {
    workers,
    pollSeconds: 0.5,
    retryLimit: testRetryLimit,
    jobSlots: platform.jobSlots,
    logger,
  });
  return { boss, worker };
}

describe("a plan's jobs running at once hold across worker processes", () => {
  let server: AudioServer;
  const processes: WorkerProcess[] = [];

  beforeAll(async () => {
    // The API queues; two worker processes of 3 workers each run the jobs.
    server = await startAudioServer({
      plan: "free",
      workers: 0,
      inlineAudioSeconds: 0,
      downloadFloor: { bytesPerSecond: 100, windowSeconds: 3 },
    });
    // Answers at once, then a byte a second: each download runs until the floor ends it.
    server.host.trickle("/media/trickle.mp3", {
      chunkBytes: 1,
      chunks: 600,
      intervalMs: 1_000,
      contentType: "audio/mpeg",
    });
  });
  afterAll(async () => {
    for (const { worker, boss } of processes) {
      await worker.stop();
      await boss.stop({ graceful: false, close: false });
    }
    await server?.close();
  });

  it("runs no more of a Free account's jobs at once than its 2 workers, and runs every job handed back later", async () => {
    // Each process alone would run 2 of them (its 3 workers less one); together they could run 4.
    const jobCount = plans.free.maxUnfinishedJobs - 1;
    expect(plans.free.batchWorkers).toBe(2);
    for (let copy = 1; copy <= jobCount; copy++) {
      const answer = await fetchTranscript(server, { video: server.host.url(`/media/trickle.mp3?copy=${copy}`) });
      expect(answer.status, answer.text).toBe(202);
    }
    // Workers start once every job is queued: what the requests read of the media to measure it is over by then.
    for (let index = 0; index < 2; index++) processes.push(await startWorkerProcess(server, 3));
    // Read from the database: polling this many jobs for a minute would use up a Free account's polling allowance.
    const finished = await jobsOnceFinished(server, jobCount);
    // None lost: each job handed back while the account's workers were busy elsewhere ran later.
    expect(finished).toEqual(Array.from({ length: jobCount }, () => ({ status: "failed", code: "timeout" })));
    expect(server.host.peakOpenRequests("/media/trickle.mp3")).toBe(plans.free.batchWorkers);
    const [slots] = await server.store.query<{ held: number }>(
      sql`select count(*)::int as held from slot_leases where pool = 'transcription'`,
    );
    expect(slots?.held).toBe(0);
  }, 200_000);
});

/** The account's jobs, once all `count` have finished: each one's status and error code. */
async function jobsOnceFinished(
  server: AudioServer,
  count: number,
): Promise<{ status: string; code: string | null }[]> {
  // Eight attempts of at least 3 s, two at a time, on one PGlite that shares its core with another test file.
  const deadline = Date.now() + 150_000;
  for (;;) {
    const jobs = await server.store.query<{ status: string; code: string | null }>(
      sql`select status, error->>'code' as code from transcript_jobs where account_id = ${server.account.id} order by created_at`,
    );
    if (jobs.length === count && jobs.every((job) => job.status !== "processing")) return jobs;
    if (Date.now() > deadline) throw new Error(`jobs still unfinished: ${JSON.stringify(jobs)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
