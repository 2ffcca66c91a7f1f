import { type DatabaseProxy, startDatabaseProxy } from "@verbatim/testkit/database-proxy";
import { type LoopbackServer, listenOnLoopback } from "@verbatim/testkit/listen";
import { sql } from "drizzle-orm";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPlatform } from "../src/assembly/platform.ts";
import { buildServices } from "../src/assembly/services.ts";
import type { AppDeps } from "../src/http/app-deps.ts";
import { authenticate } from "../src/http/auth.ts";
import { errorHandler } from "../src/http/error-handler.ts";
import { assignRequestId } from "../src/http/request-id.ts";
import { holdExtractionSlot } from "../src/http/slots.ts";
import { createLogger } from "../src/logger.ts";
import { ServiceMetrics } from "../src/metrics.ts";
import { openPostgresStore, type Store } from "../src/store/database.ts";
import { startServer, type TestServer } from "./support/server.ts";
import { createPostgresDatabase, type PostgresDatabase } from "./support/store.ts";

// An extraction route that runs until the test lets it finish, mounted behind the real
// authentication and slot middleware over the test server's platform.
let platformServer: TestServer;
let server: LoopbackServer;
const running: Array<() => void> = [];

/** The extraction route over `deps`; each request waits in `waiting` until the test answers it. */
function extractionApp(deps: AppDeps, waiting: Array<() => void>): express.Express {
  const app = express();
  app.use(assignRequestId());
  app.get("/extract", authenticate(deps, "request"), holdExtractionSlot(deps), (_req, res) => {
    waiting.push(() => res.json({ ok: true }));
  });
  app.use(errorHandler(deps));
  return app;
}

beforeAll(async () => {
  platformServer = await startServer({ plan: "pro" });
  server = await listenOnLoopback(extractionApp(platformServer.deps, running));
});

afterAll(async () => {
  await server.close();
  await platformServer.close();
});

function extract(signal?: AbortSignal, target = { baseUrl: server.baseUrl, key: platformServer.key.key }) {
  return fetch(`${target.baseUrl}/extract`, {
    headers: { Authorization: `Bearer ${target.key}` },
    ...(signal ? { signal } : {}),
  });
}

async function until(condition: () => Promise<boolean> | boolean): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error("condition not met within 2 s");
}

const inUse = () => platformServer.platform.slots.inUse(platformServer.account.id);

describe("extraction slots over HTTP", () => {
  it("answers 429 rate_limited with Retry-After when the plan's 3 slots are busy, and admits again once one frees", async () => {
    const first = [extract(), extract(), extract()];
    await until(() => running.length === 3);
    expect(await inUse()).toBe(3);

    const refused = await extract();
    const body = (await refused.json()) as { error: { code: string; number: number } };
    expect(refused.status, JSON.stringify(body)).toBe(429);
    expect(body.error).toMatchObject({ code: "rate_limited", number: 2101 });
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);

    running.shift()?.();
    expect((await first[0])?.status).toBe(200);
    await until(async () => (await inUse()) === 2);

    const admitted = extract();
    await until(() => running.length === 3);
    for (const finish of running.splice(0)) finish();
    expect((await admitted).status).toBe(200);
    await Promise.all(first.slice(1));
    await until(async () => (await inUse()) === 0);
  });

  it("gives the slot back when the client disconnects", async () => {
    const controller = new AbortController();
    const abandoned = extract(controller.signal).catch(() => undefined);
    await until(() => running.length === 1);
    expect(await inUse()).toBe(1);
    controller.abort();
    await abandoned;
    await until(async () => (await inUse()) === 0);
    running.splice(0);
  });

  it("answers 503 overloaded with Retry-After, not a 500, when the store fails while the slot is taken", async () => {
    const slots = platformServer.platform.slots;
    const acquire = slots.acquire;
    slots.acquire = () => Promise.reject(new Error("Connection terminated unexpectedly"));
    try {
      const refused = await extract();
      const body = await refused.text();
      expect(refused.status, body).toBe(503);
      expect(JSON.parse(body).error.code).toBe("overloaded");
      expect(refused.headers.get("retry-after")).toBe("5");
    } finally {
      slots.acquire = acquire;
    }
  });
});

/** The account's slot leases still recorded, lapsed or not: only a release removes one. */
async function leaseRows(store: Store, accountId: string): Promise<number> {
  const [row] = await store.query<{ leases: number }>(
    sql`select count(*)::int as leases from slot_leases where account_id = ${accountId}`,
  );
  return row?.leases ?? -1;
}

/** Polls until the account has no lease left; a bound far below the 15 s lease, so a lapse cannot pass for a release. */
async function untilLeasesGone(store: Store, accountId: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while ((await leaseRows(store, accountId)) > 0) {
    if (Date.now() > deadline) throw new Error("the slots were not given back within 5 s of the store answering");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("slots whose release the store did not answer", () => {
  it("are given back once the store answers again, not when their leases lapse: the account's next requests get them", async () => {
    const { store } = platformServer.platform;
    const accountId = platformServer.account.id;
    const answered = [extract(), extract(), extract()];
    await until(() => running.length === 3);
    expect(await leaseRows(store, accountId)).toBe(3);

    const { slots } = platformServer.platform;
    const release = slots.release;
    /** Whether each release's first attempt gave its slot back. */
    const firstAttempts: boolean[] = [];
    slots.release = (lease) => {
      const released = release.call(slots, lease);
      void released.then((givenBack) => firstAttempts.push(givenBack));
      return released;
    };
    const query = store.query;
    store.query = () => Promise.reject(new Error("Connection terminated unexpectedly"));
    try {
      for (const finish of running.splice(0)) finish();
      for (const response of await Promise.all(answered)) expect(response.status).toBe(200);
      // Every release is tried, and refused, while the store is away.
      await until(() => firstAttempts.length === 3);
      expect(firstAttempts).toEqual([false, false, false]);
    } finally {
      store.query = query;
      slots.release = release;
    }

    await untilLeasesGone(store, accountId);
    const next = [extract(), extract(), extract()];
    await until(() => running.length === 3);
    for (const finish of running.splice(0)) finish();
    for (const response of await Promise.all(next)) expect(response.status).toBe(200);
  });
});

// The database itself goes away (a proxy cuts it) while a request holding a slot finishes.
describe.runIf(process.env.DATABASE_URL)("a slot held when the database goes away (PostgreSQL)", () => {
  let database: PostgresDatabase;
  let proxy: DatabaseProxy;
  let proxied: Store;
  let direct: Store;
  let outageServer: LoopbackServer;
  let deps: AppDeps;
  const waiting: Array<() => void> = [];

  beforeAll(async () => {
    database = await createPostgresDatabase(process.env.DATABASE_URL as string);
    proxy = await startDatabaseProxy(database.url);
    proxied = await openPostgresStore(proxy.url, { poolSize: 2 });
    direct = await openPostgresStore(database.url, { poolSize: 1 });
    const now = () => new Date();
    const logger = createLogger("silent");
    const platform = await createPlatform(proxied, { now });
    deps = {
      config: { version: "0.0.0-test" },
      logger,
      now,
      platform,
      metrics: new ServiceMetrics(),
      services: buildServices({}, { platform, now, logger, allowPrivateTargets: false }),
    };
    outageServer = await listenOnLoopback(extractionApp(deps, waiting));
  });
  afterAll(async () => {
    await outageServer?.close();
    deps?.platform.slots.close();
    await proxied?.close();
    await direct?.close();
    await proxy?.close();
    await database?.drop();
  });

  it("is given back once the database answers again, well within the lease", async () => {
    const { account, key } = await deps.platform.accounts.create({ plan: "pro", name: "outage" });
    const target = { baseUrl: outageServer.baseUrl, key: key.key };
    const answered = extract(undefined, target);
    await until(() => waiting.length === 1);
    expect(await leaseRows(direct, account.id)).toBe(1);

    const outage = proxy.outage(2_000);
    waiting.shift()?.();
    expect((await answered).status).toBe(200);
    await outage;

    await untilLeasesGone(direct, account.id);
  });
});
