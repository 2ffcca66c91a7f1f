import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FakePodcastHost, startFakePodcastHost } from "@verbatim/testkit/fake-podcast-host";
import { seedDataDirectory } from "@verbatim/testkit/store-template";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pricing } from "../../src/services/accounts/pricing.ts";
import { openEmbeddedStore, openPostgresStore, type Store } from "../../src/store/database.ts";
import { type GeneratedMedia, generatedMedia } from "../asr/generated-media.ts";
import { createPostgresDatabase, type PostgresDatabase } from "../support/store.ts";
import type { Loose } from "./requests.ts";
import {
  jobServiceEnvironment,
  listeningUrl,
  request,
  type ServiceClient,
  type ServiceProcess,
  startServiceProcess,
} from "./service-process.ts";

/** Long enough that a worker is killed mid-way (about 5 s of recognition on one core), short enough to keep the test quick. */
const mediaSeconds = 240;

/** Polls until `done` holds for the job's state; answers that state. */
async function pollUntil(poller: ServiceClient, pollUrl: string, done: (job: Loose) => boolean, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = await request(poller, "GET", pollUrl).catch(() => null);
    if (job && done(job)) return job as Loose;
    if (Date.now() > deadline) throw new Error(`job not as expected within ${timeoutMs} ms: ${JSON.stringify(job)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function chargesOf(store: Store, requestId: string): Promise<number[]> {
  const rows = await store.query<{ delta: number }>(
    sql`select delta::float8 as delta from credit_ledger where request_id = ${requestId} and kind = 'charge'`,
  );
  return rows.map((row) => Number(row.delta));
}

/** Waits for the job to finish, and checks it completed and cost the media's recognition. */
async function expectCompleted(poller: ServiceClient, accepted: Loose): Promise<void> {
  const completed = await pollUntil(poller, accepted.poll_url, (job) => job.status !== "processing", 60_000);
  expect(completed, JSON.stringify(completed).slice(0, 500)).toMatchObject({
    ok: true,
    status: "completed",
    usage: { credits_spent: pricing.speechRecognition(mediaSeconds) },
  });
}

/** Checks the store charged the request once and its job completed on a second attempt. */
async function expectChargedOnceAfterRetry(store: Store, accepted: Loose): Promise<void> {
  expect(await chargesOf(store, accepted.request_id)).toEqual([-pricing.speechRecognition(mediaSeconds)]);
  const [attempts] = await store.query<{ retry_count: number; state: string }>(
    sql`select retry_count, state from pgboss.job where data->>'jobId' = ${accepted.job_id}`,
  );
  expect(attempts).toEqual({ retry_count: 1, state: "completed" });
}

describe("a worker killed with SIGKILL mid-transcription: the job is retried and charged once", () => {
  const services: ServiceProcess[] = [];
  let host: FakePodcastHost;
  let media: GeneratedMedia;
  let mediaUrl: string;

  beforeAll(async () => {
    media = await generatedMedia();
    host = await startFakePodcastHost();
    const long = await media.speech("long.wav", mediaSeconds);
    host.serveFile("/media/long.wav", long, "audio/wav");
    mediaUrl = host.url("/media/long.wav");
  });
  afterAll(async () => {
    await Promise.all(services.map((service) => service.kill("SIGKILL")));
    await host?.close();
    await media?.remove();
  });

  function start(env: Record<string, string>): ServiceProcess {
    const service = startServiceProcess({ ...jobServiceEnvironment, ...env });
    services.push(service);
    return service;
  }

  /** Asks for a transcript of the long media and waits until its job is under way; answers the accepted job. */
  async function acceptMidway(poller: ServiceClient): Promise<Loose> {
    const accepted = await request(poller, "POST", "/api/v2/transcripts/video", { video: mediaUrl });
    expect(accepted.http_status, JSON.stringify(accepted)).toBe(202);
    const midway = await pollUntil(poller, accepted.poll_url, (job) => job.progress > 0, 30_000);
    expect(midway.status).toBe("processing");
    return accepted;
  }

  it.runIf(process.env.DATABASE_URL)(
    "on PostgreSQL: an API process and a worker process; the worker is killed, a new one finishes the job",
    async () => {
      const database: PostgresDatabase = await createPostgresDatabase(process.env.DATABASE_URL as string);
      let store: Store | undefined;
      try {
        const env = { DATABASE_URL: database.url };
        const api = start({ ...env, VERBATIM_ROLE: "api" });
        const apiKey = (await api.waitForLine(/^\s+vb_live_/, 30_000)).trim();
        const poller: ServiceClient = { baseUrl: await listeningUrl(api), apiKey };
        const firstWorker = start({ ...env, VERBATIM_ROLE: "worker" });
        await firstWorker.waitForLine(/Verbatim worker running/, 30_000);

        const accepted = await acceptMidway(poller);
        await firstWorker.kill("SIGKILL");

        const secondWorker = start({ ...env, VERBATIM_ROLE: "worker" });
        await secondWorker.waitForLine(/Verbatim worker running/, 30_000);
        await expectCompleted(poller, accepted);

        store = await openPostgresStore(database.url, { poolSize: 1 });
        await expectChargedOnceAfterRetry(store, accepted);
      } finally {
        await Promise.all(services.map((service) => service.kill("SIGKILL")));
        await store?.close();
        await database.drop();
      }
    },
    120_000,
  );

  it.skipIf(process.env.DATABASE_URL)(
    "on PGlite: the whole service is killed and started again on its data directory, which finishes the job",
    async () => {
      const dataDir = await mkdtemp(join(tmpdir(), "verbatim-crash-"));
      seedDataDirectory(dataDir);
      let store: Store | undefined;
      try {
        const env = { VERBATIM_DATA_DIR: dataDir, DATABASE_URL: "" };
        const first = start(env);
        const apiKey = (await first.waitForLine(/^\s+vb_live_/, 30_000)).trim();
        let poller: ServiceClient = { baseUrl: await listeningUrl(first), apiKey };

        const accepted = await acceptMidway(poller);
        await first.kill("SIGKILL");

        // The killed process's data-directory lock goes stale after about 10 s; until then a new one refuses to start.
        let second: ServiceProcess | undefined;
        const deadline = Date.now() + 40_000;
        while (!second && Date.now() < deadline) {
          const candidate = start(env);
          const outcome = await Promise.race([
            listeningUrl(candidate, 30_000).then((url) => ({ url })),
            candidate.exited.then(() => null),
          ]);
          if (outcome) {
            second = candidate;
            poller = { baseUrl: outcome.url, apiKey };
          } else {
            await new Promise((resolve) => setTimeout(resolve, 1_000));
          }
        }
        expect(second, "the service did not start again on its data directory").toBeDefined();

        await expectCompleted(poller, accepted);
        await second?.kill("SIGTERM");

        store = await openEmbeddedStore(join(dataDir, "pglite"));
        await expectChargedOnceAfterRetry(store, accepted);
      } finally {
        await Promise.all(services.map((service) => service.kill("SIGKILL")));
        await store?.close();
        await rm(dataDir, { recursive: true, force: true });
      }
    },
    120_000,
  );
});
