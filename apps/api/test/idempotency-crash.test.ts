import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FakeYoutube, recordedVideos } from "@verbatim/testkit/fake-youtube";
import { seedDataDirectory } from "@verbatim/testkit/store-template";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openEmbeddedStore, openPostgresStore, type Store } from "../src/store/database.ts";
import type { Loose } from "./audio/requests.ts";
import {
  jobServiceEnvironment,
  listeningUrl,
  request,
  type ServiceClient,
  type ServiceProcess,
  startServiceProcess,
} from "./audio/service-process.ts";
import { createPostgresDatabase, type PostgresDatabase } from "./support/store.ts";

/** The key's lock without renewal: short, so the retry runs soon after the process died. */
const lockSeconds = "2";
/** How long a service process may take to start: seconds alone, a minute on the shared 2-core machine under load. */
const startTimeoutMs = 60_000;
const idempotencyKey = "crash-after-charge-1";

let youtube: FakeYoutube;
const services: ServiceProcess[] = [];

beforeAll(async () => {
  youtube = await FakeYoutube.start();
  youtube.serveRecordedVideos();
});
afterAll(async () => {
  await youtube?.close();
});

function start(env: Record<string, string>): ServiceProcess {
  const service = startServiceProcess({
    ...jobServiceEnvironment,
    VERBATIM_YOUTUBE_ORIGIN: youtube.origin,
    VERBATIM_IDEMPOTENCY_LOCK_SECONDS: lockSeconds,
    ...env,
  });
  services.push(service);
  return service;
}

/** Asks for the captioned video's transcript with the key; answers the status, the body and whether it was replayed. */
async function fetchWithKey(client: ServiceClient) {
  const response = await fetch(`${client.baseUrl}/api/v2/transcripts/video`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${client.apiKey}`,
      "content-type": "application/json",
      "idempotency-key": idempotencyKey,
    },
    body: JSON.stringify({ video: recordedVideos.captioned }),
  });
  const text = await response.text();
  return {
    status: response.status,
    text,
    body: JSON.parse(text) as Loose,
    headers: response.headers,
    replayed: response.headers.get("idempotent-replayed") === "true",
  };
}

async function balanceOf(client: ServiceClient): Promise<number> {
  const me = await request(client, "GET", "/api/v2/me");
  expect(me.http_status, JSON.stringify(me)).toBe(200);
  return me.data.credits as number;
}

/**
 * Sends the request to the first process, which charges it and dies before recording its answer,
 * then retries it on the process `restart` starts once the key's lock lapsed, and checks the
 * balance and a replay; answers the retry. The caller reads the ledger.
 */
async function crashThenRetry(first: ServiceProcess, restart: () => Promise<string>) {
  const apiKey = (await first.waitForLine(/^\s+vb_live_/, startTimeoutMs)).trim();
  const client: ServiceClient = { apiKey, baseUrl: await listeningUrl(first, startTimeoutMs) };
  const balanceBefore = await balanceOf(client);

  const lost = await fetchWithKey(client).then(
    (answer) => `answered ${answer.status}: ${answer.text.slice(0, 300)}`,
    () => "no answer",
  );
  expect(lost).toBe("no answer");
  await first.exited;
  expect(first.process.signalCode).toBe("SIGKILL");
  await first.waitForLine(/test fault exit-after-charge/, 1_000);

  const restarted: ServiceClient = { apiKey, baseUrl: await restart() };
  // The dead process's key answers 409 "still running" until its lock lapses, and says how long that is.
  let retry = await fetchWithKey(restarted);
  if (retry.status === 409) {
    expect(retry.body.error?.code).toBe("idempotency_conflict");
    const retryAfter = Number(retry.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(Number(lockSeconds));
    await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000));
    retry = await fetchWithKey(restarted);
  }
  expect(retry.status, retry.text.slice(0, 500)).toBe(200);
  expect(retry.body.usage).toMatchObject({ credits_spent: 1, balance: balanceBefore - 1 });
  expect(await balanceOf(restarted)).toBe(balanceBefore - 1);

  const replay = await fetchWithKey(restarted);
  expect(replay.status, replay.text.slice(0, 500)).toBe(200);
  expect(replay.replayed).toBe(true);
  expect(replay.text).toBe(retry.text);
  return { retry };
}

async function chargesOf(store: Store): Promise<Array<{ request_id: string; delta: number }>> {
  return (
    await store.query<{ request_id: string; delta: number }>(
      sql`select request_id, delta::float8 as delta from credit_ledger where kind = 'charge' order by id`,
    )
  ).map((charge) => ({ request_id: charge.request_id, delta: Number(charge.delta) }));
}

describe("an API process that dies between charging a request with an Idempotency-Key and recording its answer", () => {
  it.runIf(process.env.DATABASE_URL)(
    "on PostgreSQL: the retry after the key's lock lapsed is charged once in all, under the answer it gets",
    async () => {
      const database: PostgresDatabase = await createPostgresDatabase(process.env.DATABASE_URL as string);
      let store: Store | undefined;
      try {
        const env = { DATABASE_URL: database.url, VERBATIM_ROLE: "api" };
        const first = start({ ...env, VERBATIM_TEST_FAULTS: "exit-after-charge" });
        const { retry } = await crashThenRetry(first, () => listeningUrl(start(env), startTimeoutMs));
        store = await openPostgresStore(database.url, { poolSize: 1 });
        expect(await chargesOf(store)).toEqual([{ request_id: retry.body.request_id, delta: -1 }]);
      } finally {
        await Promise.all(services.splice(0).map((service) => service.kill("SIGKILL")));
        await store?.close();
        await database.drop();
      }
    },
    180_000,
  );

  it.skipIf(process.env.DATABASE_URL)(
    "on PGlite: the service started again on its data directory charges the retry once in all",
    async () => {
      const dataDir = await mkdtemp(join(tmpdir(), "verbatim-charge-crash-"));
      seedDataDirectory(dataDir);
      let store: Store | undefined;
      try {
        const env = { VERBATIM_DATA_DIR: dataDir, DATABASE_URL: "" };
        const first = start({ ...env, VERBATIM_TEST_FAULTS: "exit-after-charge" });
        let second: ServiceProcess | undefined;
        const { retry } = await crashThenRetry(first, async () => {
          // The killed process's data-directory lock goes stale after about 10 s; until then a new one refuses to start.
          const deadline = Date.now() + 90_000;
          while (Date.now() < deadline) {
            const candidate = start(env);
            const url = await Promise.race([
              listeningUrl(candidate, startTimeoutMs),
              candidate.exited.then(() => null),
            ]);
            if (url) {
              second = candidate;
              return url;
            }
            await new Promise((resolve) => setTimeout(resolve, 1_000));
          }
          throw new Error("the service did not start again on its data directory");
        });
        await second?.kill("SIGTERM");
        store = await openEmbeddedStore(join(dataDir, "pglite"));
        expect(await chargesOf(store)).toEqual([{ request_id: retry.body.request_id, delta: -1 }]);
      } finally {
        await Promise.all(services.splice(0).map((service) => service.kill("SIGKILL")));
        await store?.close();
        await rm(dataDir, { recursive: true, force: true });
      }
    },
    240_000,
  );
});
