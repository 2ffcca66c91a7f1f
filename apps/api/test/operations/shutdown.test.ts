import { type FakePodcastHost, startFakePodcastHost } from "@verbatim/testkit/fake-podcast-host";
import { FakeYoutube, recordedVideos } from "@verbatim/testkit/fake-youtube";
import { sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { pricing } from "../../src/services/accounts/pricing.ts";
import { openPostgresStore, type Store } from "../../src/store/database.ts";
import { type GeneratedMedia, generatedMedia } from "../asr/generated-media.ts";
import {
  jobServiceEnvironment,
  listeningUrl,
  request,
  type ServiceClient,
  type ServiceProcess,
  startServiceProcess,
} from "../audio/service-process.ts";
import { createPostgresDatabase, type PostgresDatabase } from "../support/store.ts";

/** Long enough that a worker is stopped mid-way (about 10 s of recognition on one core). */
const mediaSeconds = 600;

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Real processes on one PostgreSQL, as the distributed deployment runs them: PostgreSQL only, like the other process tests. */
describe.runIf(process.env.DATABASE_URL)("SIGTERM: a graceful shutdown", () => {
  const services: ServiceProcess[] = [];
  const databases: PostgresDatabase[] = [];
  let database: PostgresDatabase;
  let store: Store;

  // Each test on a database of its own: the first API process on one creates the account whose key it prints.
  beforeEach(async () => {
    database = await createPostgresDatabase(process.env.DATABASE_URL as string);
    databases.push(database);
    store = await openPostgresStore(database.url, { poolSize: 2 });
  });
  afterEach(async () => {
    await Promise.all(services.splice(0).map((service) => service.kill("SIGKILL")));
    await store?.close();
  });
  afterAll(async () => {
    for (const created of databases) await created.drop();
  });

  function start(env: Record<string, string>): ServiceProcess {
    const service = startServiceProcess({ ...jobServiceEnvironment, DATABASE_URL: database.url, ...env });
    services.push(service);
    return service;
  }

  const slotsHeld = async () =>
    (await store.query<{ held: number }>(sql`select count(*)::int as held from slot_leases`))[0]?.held ?? -1;

  it("an API process stops listening, finishes the request in flight with 200, frees its slot and exits 0", async () => {
    const youtube = await FakeYoutube.start();
    try {
      youtube.serveRecordedVideos();
      // Each upstream answer takes this long: the request is still running well after the signal.
      youtube.latencyMs = 3_000;
      const api = start({
        VERBATIM_ROLE: "api",
        VERBATIM_YOUTUBE_ORIGIN: youtube.origin,
        VERBATIM_UPSTREAM_TIMEOUT_MS: "20000",
        VERBATIM_UPSTREAM_BUDGET_MS: "40000",
        VERBATIM_SHUTDOWN_GRACE_SECONDS: "30",
      });
      const client: ServiceClient = {
        apiKey: (await api.waitForLine(/^\s+vb_live_/, 30_000)).trim(),
        baseUrl: await listeningUrl(api),
      };

      let settled = false;
      const inFlight = request(client, "POST", "/api/v2/transcripts/video", {
        video: recordedVideos.captioned,
      }).finally(() => {
        settled = true;
      });
      await until("the request reached YouTube", async () => (youtube.requests.length > 0 ? true : undefined), 20_000);
      expect(await slotsHeld()).toBe(1);

      api.process.kill("SIGTERM");
      // A connection accepted just before the listener closed is reset; the ones after it are refused.
      const refusal = await until(
        "new connections refused",
        () =>
          fetch(`${client.baseUrl}/api/v2/health`).then(
            () => undefined,
            (error: Error) => {
              const code = (error.cause as { code?: string } | undefined)?.code;
              return code === "ECONNRESET" ? undefined : code;
            },
          ),
        10_000,
      );
      expect(refusal).toBe("ECONNREFUSED");
      expect(settled, "the request in flight ended before the listener closed").toBe(false);

      const answer = await inFlight;
      expect(answer, JSON.stringify(answer).slice(0, 400)).toMatchObject({ http_status: 200, ok: true });
      await api.exited;
      expect(api.process.exitCode).toBe(0);
      expect(await slotsHeld()).toBe(0);
    } finally {
      await youtube.close();
    }
  }, 120_000);

  describe("a worker with a job running", () => {
    let host: FakePodcastHost;
    let media: GeneratedMedia;

    beforeAll(async () => {
      media = await generatedMedia();
      host = await startFakePodcastHost();
      const long = await media.speech("long.wav", mediaSeconds);
      host.serveFile("/media/long.wav", long, "audio/wav");
    });
    afterAll(async () => {
      await host?.close();
      await media?.remove();
    });

    it("hands the job back to the queue at once and exits 0; another worker completes it, charged once", async () => {
      const api = start({ VERBATIM_ROLE: "api" });
      const client: ServiceClient = {
        apiKey: (await api.waitForLine(/^\s+vb_live_/, 30_000)).trim(),
        baseUrl: await listeningUrl(api),
      };
      // No grace: the running attempt is handed back as soon as the worker stops.
      const first = start({ VERBATIM_ROLE: "worker", VERBATIM_SHUTDOWN_GRACE_SECONDS: "0" });
      await first.waitForLine(/Verbatim worker running/, 30_000);

      const accepted = await request(client, "POST", "/api/v2/transcripts/video", {
        video: host.url("/media/long.wav"),
      });
      expect(accepted.http_status, JSON.stringify(accepted)).toBe(202);
      await until(
        "the job under way",
        async () => ((await request(client, "GET", accepted.poll_url)).progress > 0 ? true : undefined),
        30_000,
      );

      first.process.kill("SIGTERM");
      await first.exited;
      expect(first.process.exitCode).toBe(0);
      // Handed back, not left active until its heartbeat lapses (pg-boss counts the retry when it starts it);
      // and the worker's heartbeat row is gone.
      const [queued] = await store.query<{ state: string; retry_count: number }>(
        sql`select state::text, retry_count from pgboss.job where data->>'jobId' = ${accepted.job_id}`,
      );
      expect(queued).toEqual({ state: "retry", retry_count: 0 });
      expect(await store.query(sql`select id from worker_heartbeats`)).toEqual([]);
      expect((await request(client, "GET", accepted.poll_url)).status).toBe("processing");

      const second = start({ VERBATIM_ROLE: "worker", VERBATIM_METRICS_PORT: "0" });
      await second.waitForLine(/Verbatim worker running/, 30_000);
      const metricsLine = await second.waitForLine(
        /Verbatim worker metrics on http:\/\/127\.0\.0\.1:\d+\/metrics/,
        30_000,
      );
      const metricsUrl = /http:\/\/127\.0\.0\.1:\d+\/metrics/.exec(metricsLine)?.[0] as string;
      const completed = await until(
        "the job completed",
        async () => {
          const job = await request(client, "GET", accepted.poll_url);
          return job.status === "processing" ? undefined : job;
        },
        150_000,
      );
      expect(completed, JSON.stringify(completed).slice(0, 400)).toMatchObject({
        status: "completed",
        usage: { credits_spent: pricing.speechRecognition(mediaSeconds) },
      });
      const charges = await store.query<{ delta: number }>(
        sql`select delta::float8 as delta from credit_ledger where request_id = ${accepted.request_id} and kind = 'charge'`,
      );
      expect(charges.map((row) => Number(row.delta))).toEqual([-pricing.speechRecognition(mediaSeconds)]);
      const [attempts] = await store.query<{ state: string; retry_count: number }>(
        sql`select state::text, retry_count from pgboss.job where data->>'jobId' = ${accepted.job_id}`,
      );
      expect(attempts).toEqual({ state: "completed", retry_count: 1 });

      // A worker-only process serves its own metrics on VERBATIM_METRICS_PORT: the recognition it ran.
      const scraped = await fetch(metricsUrl);
      expect(scraped.status).toBe(200);
      const recognised = /^verbatim_speech_recognition_audio_seconds_total (\S+)$/m.exec(await scraped.text())?.[1];
      expect(Number(recognised)).toBeGreaterThanOrEqual(mediaSeconds - 1);
    }, 240_000);
  });
});
