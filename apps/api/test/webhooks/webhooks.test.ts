import { fileURLToPath } from "node:url";
import { spawnNodeScript } from "@verbatim/testkit/node-process";
import { asc, eq, inArray } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createPublicFetch } from "../../src/adapters/net/public-fetch.ts";
import { createPlatform } from "../../src/assembly/platform.ts";
import { createLogger } from "../../src/logger.ts";
import { ServiceMetrics } from "../../src/metrics.ts";
import type { Platform } from "../../src/services/process-services.ts";
import { createWebhooks, type Webhooks, type WebhooksOptions } from "../../src/services/webhooks/webhook-deliverer.ts";
import type { WebhookEvent } from "../../src/services/webhooks/webhook-events.ts";
import { WebhookLog } from "../../src/services/webhooks/webhook-log.ts";
import { openPostgresStore, type Store } from "../../src/store/database.ts";
import { webhookAttempts, webhookDeliveries } from "../../src/store/schema.ts";
import { apiPackage } from "../support/api-package.ts";
import { createPostgresDatabase, openTestStore } from "../support/store.ts";
import { InFlightGauge, type ReceivedRequest, type Receiver, startReceiver } from "./receiver.ts";

let store: Store;
let platform: Platform;
let accountId: string;
const deliverers: Webhooks[] = [];
const receivers: Receiver[] = [];

beforeAll(async () => {
  store = await openTestStore();
  platform = await createPlatform(store, { now: () => new Date() });
  accountId = (await platform.accounts.create({ plan: "pro" })).account.id;
});

afterEach(async () => {
  await Promise.all(deliverers.splice(0).map((deliverer) => deliverer.stop()));
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
  // Every test starts with nothing due, whatever the one before left pending.
  await store.db.update(webhookDeliveries).set({ status: "failed", nextAttemptAt: null });
});

afterAll(() => store?.close());

/** A started deliverer on the test store that may reach the loopback receivers. */
function deliverer(options: Partial<WebhooksOptions> = {}): Webhooks {
  const webhooks = createWebhooks(store, {
    logger: createLogger("silent"),
    allowPrivateTargets: true,
    pollIntervalMs: 50,
    retryDelaysMs: [],
    ...options,
  });
  webhooks.start();
  deliverers.push(webhooks);
  return webhooks;
}

async function receiver(...args: Parameters<typeof startReceiver>): Promise<Receiver> {
  const started = await startReceiver(...args);
  receivers.push(started);
  return started;
}

function event(url: string, payload: Record<string, unknown> = { type: "transcript_job.completed" }): WebhookEvent {
  return { accountId, url, type: String(payload.type ?? "transcript_job.completed"), payload };
}

async function waitFor<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 8_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function delivery(id: string) {
  const [row] = await store.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id));
  if (!row) throw new Error(`no delivery ${id}`);
  return row;
}

/** Waits until the delivery is `delivered` or `failed`, and answers it. */
function settled(id: string) {
  return waitFor(async () => {
    const row = await delivery(id);
    return row.status === "pending" ? undefined : row;
  }, `delivery ${id} to settle`);
}

function attemptsOf(id: string) {
  return store.db
    .select()
    .from(webhookAttempts)
    .where(eq(webhookAttempts.deliveryId, id))
    .orderBy(asc(webhookAttempts.attempt));
}

function headersOf(request: ReceivedRequest): Record<string, string> {
  return Object.fromEntries(
    Object.entries(request.headers).flatMap(([name, value]) => (typeof value === "string" ? [[name, value]] : [])),
  );
}

describe("a delivery", () => {
  it("arrives signed with the account's secret, verified by Webhook.verify, with the body as enqueued", async () => {
    const endpoint = await receiver();
    const webhooks = deliverer();
    const payload = { type: "transcript_job.completed", job_id: "job_1", status: "completed", data: { text: "hi" } };
    const id = await webhooks.enqueue(event(endpoint.url(), payload));

    expect(id).toMatch(/^evt_[0-9A-Z]{26}$/);
    expect((await settled(id)).status).toBe("delivered");
    expect(endpoint.requests).toHaveLength(1);
    const [request] = endpoint.requests;
    if (!request) throw new Error("no request");
    expect(request.headers).toMatchObject({
      "webhook-id": id,
      "webhook-timestamp": expect.stringMatching(/^\d{10}$/),
      "webhook-signature": expect.stringMatching(/^v1,[A-Za-z0-9+/]+=*$/),
      "content-type": "application/json",
    });
    expect(request.body).toBe(JSON.stringify(payload));
    const secret = await platform.accounts.webhookSecret(accountId);
    expect(new Webhook(secret).verify(request.body, headersOf(request))).toEqual(payload);
    expect(await attemptsOf(id)).toEqual([
      expect.objectContaining({ attempt: 1, responseStatus: 200, error: null, durationMs: expect.any(Number) }),
    ]);
  });

  it("is retried after two 500s with the same webhook-id, spaced per the schedule, and logged", async () => {
    const endpoint = await receiver(() => ({ status: endpoint.requests.length <= 2 ? 500 : 200 }));
    const webhooks = deliverer({ retryDelaysMs: [300, 1_200, 5_000] });
    const id = await webhooks.enqueue(event(endpoint.url()));

    const settledRow = await settled(id);
    expect(settledRow).toMatchObject({ status: "delivered", attempts: 3, nextAttemptAt: null });
    expect(settledRow.deliveredAt).toBeInstanceOf(Date);
    expect(endpoint.requests.map((request) => request.headers["webhook-id"])).toEqual([id, id, id]);
    const [first, second, third] = endpoint.requests.map((request) => request.receivedAt);
    const gaps = [(second ?? 0) - (first ?? 0), (third ?? 0) - (second ?? 0)];
    // Each gap is its own step of the schedule: at least that step, and short of the next one.
    expect(gaps[0]).toBeGreaterThanOrEqual(300);
    expect(gaps[0]).toBeLessThan(1_200);
    expect(gaps[1]).toBeGreaterThanOrEqual(1_200);
    expect(gaps[1]).toBeLessThan(5_000);
    expect(
      (await attemptsOf(id)).map(({ attempt, responseStatus, error }) => ({ attempt, responseStatus, error })),
    ).toEqual([
      { attempt: 1, responseStatus: 500, error: "answered HTTP 500" },
      { attempt: 2, responseStatus: 500, error: "answered HTTP 500" },
      { attempt: 3, responseStatus: 200, error: null },
    ]);
  });

  it("fails once the schedule is exhausted, and is not tried again", async () => {
    const endpoint = await receiver(() => ({ status: 503 }));
    const webhooks = deliverer({ retryDelaysMs: [50, 50] });
    const id = await webhooks.enqueue(event(endpoint.url()));

    expect(await settled(id)).toMatchObject({ status: "failed", attempts: 3, nextAttemptAt: null, deliveredAt: null });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(endpoint.requests).toHaveLength(3);
    expect((await attemptsOf(id)).map((attempt) => attempt.responseStatus)).toEqual([503, 503, 503]);
  });

  it("counts a 3xx as a failed attempt and never follows the redirect", async () => {
    const endpoint = await receiver((request) =>
      request.path === "/moved" ? { status: 302, headers: { location: endpoint.url("/elsewhere") } } : { status: 200 },
    );
    const webhooks = deliverer({ retryDelaysMs: [50] });
    const id = await webhooks.enqueue(event(endpoint.url("/moved")));

    expect(await settled(id)).toMatchObject({ status: "failed", attempts: 2 });
    expect(endpoint.requests.map((request) => request.path)).toEqual(["/moved", "/moved"]);
    const [attempt] = await attemptsOf(id);
    expect(attempt).toMatchObject({ responseStatus: 302 });
    expect(attempt?.error).toMatch(/redirect to http:\/\/127\.0\.0\.1:\d+\/elsewhere, which is not followed/);
  });

  it("gives up an attempt the endpoint does not answer within the timeout, and logs it", async () => {
    const endpoint = await receiver(() => "hang");
    const webhooks = deliverer({ attemptTimeoutMs: 300 });
    const id = await webhooks.enqueue(event(endpoint.url()));

    expect(await settled(id)).toMatchObject({ status: "failed", attempts: 1 });
    const [attempt] = await attemptsOf(id);
    expect(attempt).toMatchObject({ responseStatus: null, error: "no answer within 300 ms (timeout)" });
    expect(attempt?.durationMs).toBeGreaterThanOrEqual(290);
    expect(attempt?.durationMs).toBeLessThan(2_000);
  });

  it("logs a refused connection as a failed attempt to retry", async () => {
    const closed = await startReceiver();
    const url = closed.url();
    await closed.close();
    const webhooks = deliverer({ retryDelaysMs: [50] });
    const id = await webhooks.enqueue(event(url));

    expect(await settled(id)).toMatchObject({ status: "failed", attempts: 2 });
    expect((await attemptsOf(id)).map((attempt) => attempt.error)).toEqual([
      expect.stringMatching(/^request failed: The connection to 127\.0\.0\.1:\d+ failed \(ECONNREFUSED\)/),
      expect.stringMatching(/^request failed: The connection to 127\.0\.0\.1:\d+ failed \(ECONNREFUSED\)/),
    ]);
  });
});

describe("the webhook log (the operator's list and the dashboard's)", () => {
  it("shows an account's deliveries newest first, each with its attempts, and pages by id", async () => {
    const endpoint = await receiver(() => ({ status: endpoint.requests.length === 1 ? 500 : 200 }));
    const webhooks = deliverer({ retryDelaysMs: [50] });
    const owner = (await platform.accounts.create({ plan: "free" })).account.id;
    const older = await webhooks.enqueue({ accountId: owner, url: endpoint.url(), type: "older", payload: {} });
    await settled(older);
    const newer = await webhooks.enqueue({ accountId: owner, url: endpoint.url(), type: "newer", payload: {} });
    await settled(newer);

    const log = new WebhookLog(store, () => new Date());
    const listed = await log.list(owner, { limit: 10 });
    expect(listed.deliveries).toEqual([
      expect.objectContaining({ id: newer, event_type: "newer", status: "delivered" }),
      expect.objectContaining({ id: older, event_type: "older", status: "delivered" }),
    ]);
    expect(listed.nextBefore).toBeNull();
    expect(listed.deliveries[1]?.attempts).toEqual([
      expect.objectContaining({ attempt: 1, response_status: 500 }),
      expect.objectContaining({ attempt: 2, response_status: 200, error: null }),
    ]);
    const first = await log.list(owner, { limit: 1 });
    expect(first.deliveries.map((delivery) => delivery.id)).toEqual([newer]);
    expect(first.nextBefore).toBe(newer);
    const second = await log.list(owner, { limit: 1, before: newer });
    expect(second.deliveries.map((delivery) => delivery.id)).toEqual([older]);
    expect((await log.list("acct_nope", { limit: 1 })).deliveries).toEqual([]);
  });
});

describe("enqueueing in a transaction", () => {
  it("never delivers an event whose transaction rolls back, and delivers one that commits", async () => {
    const endpoint = await receiver();
    const webhooks = deliverer();
    let rolledBackId = "";
    await expect(
      store.db.transaction(async (tx) => {
        rolledBackId = await webhooks.enqueue(event(endpoint.url(), { type: "rolled.back" }), tx);
        throw new Error("the job's transaction fails");
      }),
    ).rejects.toThrow("the job's transaction fails");
    const committedId = await store.db.transaction((tx) =>
      webhooks.enqueue(event(endpoint.url(), { type: "committed" }), tx),
    );

    expect((await settled(committedId)).status).toBe("delivered");
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(endpoint.requests.map((request) => JSON.parse(request.body))).toEqual([{ type: "committed" }]);
    expect(await store.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, rolledBackId))).toEqual([]);
  });
});

describe("the address rule", () => {
  it("refuses an http target without VERBATIM_ALLOW_PRIVATE_TARGETS: failed at once, logged, never connected", async () => {
    const endpoint = await receiver();
    const webhooks = deliverer({ allowPrivateTargets: false, retryDelaysMs: [50, 50] });
    const id = await webhooks.enqueue(event(endpoint.url()));

    expect(await settled(id)).toMatchObject({ status: "failed", attempts: 1 });
    expect(await attemptsOf(id)).toEqual([
      expect.objectContaining({
        responseStatus: null,
        error: expect.stringMatching(/only https addresses are admitted/),
      }),
    ]);
    expect(endpoint.connections()).toBe(0);
  });

  it("refuses a private address without VERBATIM_ALLOW_PRIVATE_TARGETS: failed at once, logged, never connected", async () => {
    const endpoint = await receiver();
    const webhooks = deliverer({ allowPrivateTargets: false, retryDelaysMs: [50, 50] });
    const id = await webhooks.enqueue(event(`https://127.0.0.1:${endpoint.port}/hook`));

    expect(await settled(id)).toMatchObject({ status: "failed", attempts: 1 });
    const [attempt] = await attemptsOf(id);
    expect(attempt).toMatchObject({ responseStatus: null });
    expect(attempt?.error).toMatch(/^refused: .*127\.0\.0\.1.* a loopback address; only public addresses/);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(endpoint.connections()).toBe(0);
    expect(await attemptsOf(id)).toHaveLength(1);
  });

  it("delivers to an http loopback target with VERBATIM_ALLOW_PRIVATE_TARGETS", async () => {
    const endpoint = await receiver();
    const webhooks = deliverer({ allowPrivateTargets: true });
    const id = await webhooks.enqueue(event(endpoint.url()));

    expect(await settled(id)).toMatchObject({ status: "delivered", attempts: 1 });
    expect(endpoint.requests).toHaveLength(1);
  });
});

describe("the account's secret", () => {
  it("is read at each attempt, so a rotation signs the next attempt with the new secret", async () => {
    const oldSecret = await platform.accounts.webhookSecret(accountId);
    let newSecret = "";
    const endpoint = await receiver(async () => {
      if (endpoint.requests.length > 1) return { status: 200 };
      newSecret = await platform.accounts.rotateWebhookSecret(accountId);
      return { status: 500 };
    });
    const webhooks = deliverer({ retryDelaysMs: [50] });
    const id = await webhooks.enqueue(event(endpoint.url()));

    expect((await settled(id)).status).toBe("delivered");
    const [first, second] = endpoint.requests;
    if (!first || !second) throw new Error("expected two requests");
    expect(new Webhook(oldSecret).verify(first.body, headersOf(first))).toBeTruthy();
    expect(new Webhook(newSecret).verify(second.body, headersOf(second))).toBeTruthy();
    expect(() => new Webhook(oldSecret).verify(second.body, headersOf(second))).toThrow();
  });
});

describe("concurrency", () => {
  it("keeps delivering to other hosts while one host is slow, whatever paths the slow one's URLs have", async () => {
    const slowHost = await receiver(() => new Promise((resolve) => setTimeout(() => resolve({ status: 200 }), 1_500)));
    const fastHost = await receiver();
    const webhooks = deliverer({ concurrency: 4, concurrencyPerHost: 2, concurrencyPerAccount: 4 });
    const slowIds = [];
    for (let index = 0; index < 6; index += 1) {
      slowIds.push(await webhooks.enqueue(event(slowHost.url(`/hook-${index}?attempt=${index}`))));
    }
    await waitFor(async () => (slowHost.requests.length >= 2 ? true : undefined), "the slow host's first requests");
    const fastId = await webhooks.enqueue(event(fastHost.url("/fast")));

    expect((await settled(fastId)).status).toBe("delivered");
    const stillPending = await Promise.all(slowIds.map(async (id) => (await delivery(id)).status === "pending"));
    expect(stillPending.filter(Boolean).length).toBeGreaterThanOrEqual(4);
    // Six different URLs, one host: the host's limit held them to two at a time.
    expect(slowHost.requests.length).toBeLessThanOrEqual(2);
  });

  it("waits on stop for the attempts in flight and records them", async () => {
    const endpoint = await receiver(() => new Promise((resolve) => setTimeout(() => resolve({ status: 204 }), 300)));
    const webhooks = deliverer();
    const id = await webhooks.enqueue(event(endpoint.url()));
    await waitFor(async () => (endpoint.requests.length > 0 ? true : undefined), "the request");

    await webhooks.stop();
    expect(await delivery(id)).toMatchObject({ status: "delivered", attempts: 1 });
  });

  it("hands a delivery whose claim and host slot lapsed (its process died mid-attempt) to another deliverer", async () => {
    const endpoint = await receiver();
    let abandonFirstAttempt = (_error: Error) => {};
    // One slot per host: the second deliverer needs the one the first holds to have lapsed.
    const stuck = deliverer({
      concurrencyPerHost: 1,
      attemptTimeoutMs: 1_000,
      fetch: () =>
        new Promise((_resolve, reject) => {
          abandonFirstAttempt = reject;
        }),
    });
    const id = await stuck.enqueue(event(endpoint.url()));
    await waitFor(async () => ((await delivery(id)).attempts === 1 ? true : undefined), "the first claim");

    // A second process whose clock is past the claim (the attempt timeout plus the claim's margin) and the slot's lease.
    const later = deliverer({ concurrencyPerHost: 1, now: () => new Date(Date.now() + 1_000 + 31_000) });
    expect(await settled(id)).toMatchObject({ status: "delivered", attempts: 2 });
    abandonFirstAttempt(new Error("the first process answers too late"));
    await stuck.stop();

    expect(await delivery(id)).toMatchObject({ status: "delivered", attempts: 2 });
    expect(endpoint.requests).toHaveLength(1);
    expect((await attemptsOf(id)).map(({ attempt, responseStatus }) => ({ attempt, responseStatus }))).toEqual([
      { attempt: 1, responseStatus: null },
      { attempt: 2, responseStatus: 200 },
    ]);
    await later.stop();
  });

  it("sends each attempt once when two deliverers poll the same store", async () => {
    const endpoint = await receiver((request) => {
      const seen = endpoint.requests.filter((other) => other.headers["webhook-id"] === request.headers["webhook-id"]);
      return { status: seen.length === 1 ? 500 : 200 };
    });
    const options = { pollIntervalMs: 10, retryDelaysMs: [30], concurrencyPerHost: 8, concurrencyPerAccount: 8 };
    const first = deliverer(options);
    deliverer(options);
    const ids: string[] = [];
    for (let index = 0; index < 20; index += 1) ids.push(await first.enqueue(event(endpoint.url())));

    for (const id of ids) expect((await settled(id)).status).toBe("delivered");
    await expectEachAttemptSentOnce(endpoint, ids, (id) => attemptsOf(id));
  });
});

describe.skipIf(!process.env.DATABASE_URL)("two processes on one PostgreSQL (DATABASE_URL)", () => {
  it("never send one attempt twice: each deliverer has its own connection pool", async () => {
    const database = await createPostgresDatabase(process.env.DATABASE_URL ?? "");
    const stores = [await openPostgresStore(database.url), await openPostgresStore(database.url)];
    const publicFetch = createPublicFetch({ allowPrivateTargets: true });
    const [storeA, storeB] = stores;
    if (!storeA || !storeB) throw new Error("two stores expected");
    try {
      const otherPlatform = await createPlatform(storeA, { now: () => new Date() });
      const owner = (await otherPlatform.accounts.create({ plan: "pro" })).account.id;
      const endpoint = await receiver((request) => {
        const seen = endpoint.requests.filter((other) => other.headers["webhook-id"] === request.headers["webhook-id"]);
        return { status: seen.length === 1 ? 500 : 200 };
      });
      // Each deliverer names itself in a header, to show that both took part.
      const processes = stores.map((each, index) =>
        createWebhooks(each, {
          logger: createLogger("silent"),
          fetch: (url, init) =>
            publicFetch(url, { ...init, headers: { ...init.headers, "x-deliverer": String(index) } }),
          allowPrivateTargets: true,
          pollIntervalMs: 10,
          retryDelaysMs: [30],
          concurrencyPerHost: 8,
          concurrencyPerAccount: 8,
        }),
      );
      for (const webhooks of processes) {
        webhooks.start();
        deliverers.push(webhooks);
      }
      const ids: string[] = [];
      for (let index = 0; index < 40; index += 1) {
        const webhooks = processes[index % 2];
        if (!webhooks) throw new Error("no deliverer");
        ids.push(await webhooks.enqueue({ accountId: owner, url: endpoint.url(), type: "t", payload: { index } }));
      }

      const attemptsIn = (id: string) =>
        storeA.db
          .select()
          .from(webhookAttempts)
          .where(eq(webhookAttempts.deliveryId, id))
          .orderBy(asc(webhookAttempts.attempt));
      await waitFor(async () => {
        const rows = await storeA.db.select().from(webhookDeliveries);
        return rows.length === 40 && rows.every((row) => row.status === "delivered") ? true : undefined;
      }, "every delivery to be delivered");
      await expectEachAttemptSentOnce(endpoint, ids, attemptsIn);
      expect(new Set(endpoint.requests.map((request) => request.headers["x-deliverer"]))).toEqual(new Set(["0", "1"]));
    } finally {
      await Promise.all(deliverers.splice(0).map((deliverer) => deliverer.stop()));
      await publicFetch.close();
      await Promise.all(stores.map((each) => each.close()));
      await database.drop();
    }
  });
});

/** Two deliverers sharing one database, and an account to deliver for. */
interface DelivererPair {
  deliverers: [Webhooks, Webhooks];
  accountId: string;
  /** Waits until every delivery is `delivered`. */
  allDelivered(ids: string[]): Promise<void>;
  close(): Promise<void>;
}

/**
 * Two deliverers as two worker processes run them: on PostgreSQL (DATABASE_URL), each with a
 * connection pool of its own on one fresh database; on PGlite, which admits one process, two
 * independent deliverers on the test store.
 */
async function twoDeliverers(options: Partial<WebhooksOptions>): Promise<DelivererPair> {
  const serverUrl = process.env.DATABASE_URL;
  const database = serverUrl ? await createPostgresDatabase(serverUrl) : undefined;
  const stores = database ? [await openPostgresStore(database.url), await openPostgresStore(database.url)] : [store];
  const [first = store, second = first] = stores;
  const owner = database
    ? (await (await createPlatform(first, { now: () => new Date() })).accounts.create({ plan: "pro" })).account.id
    : accountId;
  const started = [first, second].map((each) => {
    const webhooks = createWebhooks(each, {
      logger: createLogger("silent"),
      allowPrivateTargets: true,
      pollIntervalMs: 10,
      retryDelaysMs: [],
      ...options,
    });
    webhooks.start();
    return webhooks;
  }) as [Webhooks, Webhooks];
  return {
    deliverers: started,
    accountId: owner,
    async allDelivered(ids) {
      await waitFor(
        async () => {
          const rows = await first.db.select().from(webhookDeliveries).where(inArray(webhookDeliveries.id, ids));
          return rows.length === ids.length && rows.every((row) => row.status === "delivered") ? true : undefined;
        },
        "every delivery to be delivered",
        30_000,
      );
    },
    async close() {
      await Promise.all(started.map((webhooks) => webhooks.stop()));
      if (!database) return;
      await Promise.all(stores.map((each) => each.close()));
      await database.drop();
    },
  };
}

const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

describe("the limits per host and per account hold across deliverers sharing a database", () => {
  it("never has more than 2 attempts in flight to one slow host between two deliverers, whatever its paths", async () => {
    const slowHost = await receiver(() => sleep(300).then(() => ({ status: 200 })));
    const pair = await twoDeliverers({ concurrencyPerHost: 2, concurrencyPerAccount: 16 });
    try {
      const [first] = pair.deliverers;
      const ids: string[] = [];
      for (let index = 0; index < 12; index += 1) {
        ids.push(
          await first.enqueue({
            accountId: pair.accountId,
            url: slowHost.url(`/hook-${index}`),
            type: "t",
            payload: {},
          }),
        );
      }
      await pair.allDelivered(ids);
      // Each deliverer alone would have had two in flight: four at once, had each kept its own count.
      expect(slowHost.inFlight.peak).toBe(2);
      expect(slowHost.requests).toHaveLength(12);
    } finally {
      await pair.close();
    }
  });

  it("never has more than 4 attempts of one account in flight between two deliverers, across its hosts", async () => {
    const account = new InFlightGauge();
    const slowHosts = [];
    for (let index = 0; index < 3; index += 1) {
      slowHosts.push(await receiver(() => sleep(300).then(() => ({ status: 200 })), [account]));
    }
    const pair = await twoDeliverers({ concurrencyPerHost: 2, concurrencyPerAccount: 4 });
    try {
      const [first] = pair.deliverers;
      const ids: string[] = [];
      for (let index = 0; index < 18; index += 1) {
        const host = slowHosts[index % slowHosts.length] as Receiver;
        ids.push(
          await first.enqueue({ accountId: pair.accountId, url: host.url(`/hook-${index}`), type: "t", payload: {} }),
        );
      }
      await pair.allDelivered(ids);
      // Three hosts of two slots each, four slots per deliverer: eight at once, had each kept its own count.
      expect(account.peak).toBe(4);
      for (const host of slowHosts) expect(host.inFlight.peak).toBeLessThanOrEqual(2);
    } finally {
      await pair.close();
    }
  });
});

// A killed process needs a database another process shares: this test runs only with DATABASE_URL.
describe.runIf(process.env.DATABASE_URL)("a deliverer process killed mid-attempt", () => {
  it("keeps its host's slots while it lives and renews them, and frees them within its lease after SIGKILL", async () => {
    const database = await createPostgresDatabase(process.env.DATABASE_URL ?? "");
    const shared = await openPostgresStore(database.url);
    const leaseSeconds = 3;
    const child = spawnNodeScript(
      fileURLToPath(new URL("./deliver-webhooks.child.ts", import.meta.url)),
      [database.url, String(leaseSeconds)],
      { cwd: apiPackage },
    );
    const parent = createWebhooks(shared, {
      logger: createLogger("silent"),
      allowPrivateTargets: true,
      pollIntervalMs: 20,
      retryDelaysMs: [],
    });
    try {
      const owner = (await (await createPlatform(shared, { now: () => new Date() })).accounts.create({ plan: "pro" }))
        .account.id;
      const endpoint = await receiver((request) => (request.path === "/after" ? { status: 200 } : "hang"));
      const send = (path: string) =>
        parent.enqueue({ accountId: owner, url: endpoint.url(path), type: "t", payload: {} });
      await child.waitForLine(/^delivering$/, 20_000);
      await send("/held-1");
      await send("/held-2");
      await waitFor(async () => (endpoint.requests.length >= 2 ? true : undefined), "the child's two attempts", 20_000);
      const after = await send("/after");
      parent.start();

      // Longer than two leases: only the living child's renewals keep the host's two slots busy.
      await sleep(2 * leaseSeconds * 1000 + 500);
      expect(child.process.exitCode).toBeNull();
      expect(endpoint.requests.map((request) => request.path).sort()).toEqual(["/held-1", "/held-2"]);

      await child.kill("SIGKILL");
      expect(child.process.signalCode).toBe("SIGKILL");
      // A slot lives 3 s past its last renewal; 15 s leaves room for a loaded machine.
      await waitFor(
        async () => {
          const [row] = await shared.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, after));
          return row?.status === "delivered" ? true : undefined;
        },
        "the delivery held back by the killed child",
        15_000,
      );
    } finally {
      await child.kill("SIGKILL");
      await parent.stop();
      await shared.close();
      await database.drop();
    }
  }, 60_000);
});

/** Every delivery arrived exactly twice (a 500, then a 200), and the log holds attempts 1 and 2 once each. */
async function expectEachAttemptSentOnce(
  endpoint: Receiver,
  ids: string[],
  attempts: (id: string) => Promise<{ attempt: number }[]>,
): Promise<void> {
  const received = new Map<string, number>();
  for (const request of endpoint.requests) {
    const id = String(request.headers["webhook-id"]);
    received.set(id, (received.get(id) ?? 0) + 1);
  }
  expect(Object.fromEntries(received)).toEqual(Object.fromEntries(ids.map((id) => [id, 2])));
  for (const id of ids) expect((await attempts(id)).map((attempt) => attempt.attempt)).toEqual([1, 2]);
}

describe("one account's unreachable receivers do not starve the others", () => {
  it("delivers another account's event at once while sixty deliveries wait on a receiver that never answers", async () => {
    const silent = await receiver(() => "hang");
    const healthy = await receiver();
    const attemptTimeoutMs = 3_000;
    const webhooks = deliverer({ attemptTimeoutMs });
    // Sixty URLs of one host, as sixty jobs' callback_urls would be.
    for (let index = 0; index < 60; index += 1) await webhooks.enqueue(event(silent.url(`/hooks/${index}`)));
    await waitFor(async () => (silent.requests.length > 0 ? true : undefined), "the first silent attempts");

    const other = (await platform.accounts.create({ plan: "pro" })).account.id;
    const enqueuedAt = Date.now();
    const id = await webhooks.enqueue({ accountId: other, url: healthy.url("/hook"), type: "t", payload: { n: 1 } });
    expect((await settled(id)).status).toBe("delivered");
    // With every slot held by the silent receiver, it waited a whole attempt timeout, or several.
    expect(Date.now() - enqueuedAt).toBeLessThan(attemptTimeoutMs);
    // The host's limit, not the 16 slots, bounds what waits on the silent receiver.
    expect(silent.requests.length).toBeLessThanOrEqual(2);
  });
});

describe("the circuit breaker of a host that keeps timing out", () => {
  it("leaves the host alone for its cool-down after three timeouts in a row, then probes it and delivers the rest", async () => {
    let answering = false;
    const flaky = await receiver(() => (answering ? { status: 200 } : "hang"));
    const cooldownMs = 1_500;
    const webhooks = deliverer({
      attemptTimeoutMs: 300,
      retryDelaysMs: Array.from({ length: 10 }, () => 0),
      concurrencyPerHost: 1,
      breakerThreshold: 3,
      breakerCooldownMs: cooldownMs,
    });
    const ids: string[] = [];
    for (let index = 0; index < 3; index += 1) ids.push(await webhooks.enqueue(event(flaky.url(`/hook/${index}`))));
    await waitFor(async () => (flaky.requests.length >= 3 ? true : undefined), "three attempts");
    answering = true;

    for (const id of ids) expect((await settled(id)).status).toBe("delivered");
    const [, , third, probe] = flaky.requests;
    if (!third || !probe) throw new Error("expected a probe after three timeouts");
    // Before the breaker, the next attempt followed the third timeout at once.
    expect(probe.receivedAt - third.receivedAt).toBeGreaterThanOrEqual(cooldownMs);
    // After a successful probe the circuit is closed: everything else went through without a pause.
    expect(flaky.requests).toHaveLength(3 + ids.length);
  });
});

describe("metrics: the deliverer counts each attempt's outcome", () => {
  it("counts a delivered attempt, a retried one and the last failed one", async () => {
    const metrics = new ServiceMetrics();
    const accepting = await receiver();
    const refusing = await receiver(() => ({ status: 500 }));
    const webhooks = deliverer({ metrics, retryDelaysMs: [10] });
    const delivered = await webhooks.enqueue(event(accepting.url()));
    const failed = await webhooks.enqueue(event(refusing.url()));
    expect((await settled(delivered)).status).toBe("delivered");
    expect((await settled(failed)).status).toBe("failed");
    const text = await metrics.text();
    for (const [outcome, count] of [
      ["delivered", 1],
      ["retrying", 1],
      ["failed", 1],
    ] as const) {
      expect(text).toContain(`verbatim_webhook_attempts_total{outcome="${outcome}"} ${count}\n`);
    }
  });
});
