import { type ServerSentEvent, serverSentEvents } from "@verbatim/sdk";
import { listenOnLoopback } from "@verbatim/testkit/listen";
import { sql } from "drizzle-orm";
import { expect } from "vitest";
import { SherpaOnnxSpeechEngine, type SpeechEngine } from "../../src/adapters/asr/index.ts";
import { createApp } from "../../src/app.ts";
import { createPlatform } from "../../src/assembly/platform.ts";
import { buildServices } from "../../src/assembly/services.ts";
import { createLogger } from "../../src/logger.ts";
import type { PlanName } from "../../src/services/accounts/plans.ts";
import type { Platform } from "../../src/services/process-services.ts";
import { createWebhooks, type Webhooks } from "../../src/services/webhooks/webhook-deliverer.ts";
import type { LiveSource } from "../../src/sources/live/index.ts";
import { openPostgresStore, type Store } from "../../src/store/database.ts";
import { LiveWorkers } from "../../src/workers/live-workers.ts";
import { buildTestAdapters } from "../support/adapters.ts";
import { type Answer, send } from "../support/http.ts";
import { serveApp, type TestServer, testAppDeps } from "../support/server.ts";
import { createPostgresDatabase, openTestStore } from "../support/store.ts";

/** The shipped model, loaded once per test file. */
export const liveEngine: SpeechEngine = new SherpaOnnxSpeechEngine();

/** Seconds a test worker's lease lives: short, so that a dead worker's session is taken over within seconds. */
export const testLeaseSeconds = 2;

export interface LiveServerOptions {
  /** `VERBATIM_ALLOW_PRIVATE_TARGETS=1`: loopback playlists and webhooks are read. Default true. */
  allowPrivateTargets?: boolean;
  plan?: PlanName;
  credits?: number | null;
  /** Deliver webhooks, polling every 50 ms, with http and loopback receivers admitted. */
  webhooks?: boolean;
  /** Start a worker of live sessions in this process. Default true. */
  workers?: boolean;
  /** Milliseconds without new media after which a stream is over; default 8 s. */
  silenceMs?: number;
  /** The platforms' broadcasts (what yt-dlp resolves in production); without it, every address is read directly. */
  platforms?: LiveSource;
}

/** An API process with live sessions over a store, and its live workers. */
export interface LiveServer extends TestServer {
  store: Store;
  platform: Platform;
  /** The first worker of live sessions, when the options started one. */
  workers: LiveWorkers | undefined;
  /** Another worker on the same store, as another process would run: closed with the server. */
  startWorkers(): LiveWorkers;
  webhooks: Webhooks | undefined;
  close(): Promise<void>;
}

/**
 * A server with live sessions over `store` (left open on close), reading playlists through a
 * public fetch of its own, as `main.ts` builds them, with responses validated against the contract.
 */
export async function startLiveServer(store: Store, options: LiveServerOptions = {}): Promise<LiveServer> {
  const built = await liveDeps(store, options);
  const { deps, services, webhooks, adapters, logger, platform } = built;
  const served = await serveApp(deps, {
    ...(options.plan === undefined ? {} : { plan: options.plan }),
    ...(options.credits === undefined ? {} : { credits: options.credits }),
    name: "live test",
  });
  const started: LiveWorkers[] = [];
  const startWorkers = () => {
    const work = services.liveWork;
    if (!work) throw new Error("the server has no live sessions");
    const workers = new LiveWorkers(work.runner, work.store, {
      capacity: 4,
      leaseSeconds: testLeaseSeconds,
      pollMs: 200,
      logger,
    });
    workers.start();
    started.push(workers);
    return workers;
  };
  const workers = options.workers === false ? undefined : startWorkers();
  webhooks?.start();
  return {
    ...served,
    store,
    platform,
    workers,
    startWorkers,
    webhooks,
    async close() {
      await Promise.all(started.map((each) => each.stop()));
      await webhooks?.stop();
      await services.liveWork?.feed.close();
      await served.close();
      await adapters.close();
      platform.slots.close();
    },
  };
}

/**
 * Another API process on the database of `store` (the same store on the embedded engine, a
 * store of its own on PostgreSQL), serving the accounts the first one made, with no workers.
 */
export async function startApiProcess(
  store: Store,
  options: LiveServerOptions = {},
): Promise<{ baseUrl: string; close(): Promise<void> }> {
  const built = await liveDeps(store, options);
  const listening = await listenOnLoopback(createApp(built.deps));
  return {
    baseUrl: listening.baseUrl,
    async close() {
      await built.services.liveWork?.feed.close();
      await listening.close();
      await built.adapters.close();
      built.platform.slots.close();
    },
  };
}

/** The deps of an API process with live sessions over `store`, as `main.ts` builds them. */
async function liveDeps(store: Store, options: LiveServerOptions) {
  const now = () => new Date();
  const logger = createLogger("silent");
  const platform = await createPlatform(store, { now });
  const allowPrivateTargets = options.allowPrivateTargets ?? true;
  const adapters = await buildTestAdapters({
    logger,
    engine: liveEngine,
    live: { allowPrivateTargets, ...(options.platforms ? { platforms: options.platforms } : {}) },
  });
  const webhooks = options.webhooks
    ? createWebhooks(store, { logger, allowPrivateTargets: true, pollIntervalMs: 50 })
    : undefined;
  const services = buildServices(adapters, {
    platform,
    now,
    logger,
    allowPrivateTargets,
    ...(webhooks ? { webhooks } : {}),
    live: {
      silenceMs: options.silenceMs ?? 8_000,
      maxBytesPerMinute: 32 * 1024 * 1024,
      minPollMs: 200,
      waitingRecheckMs: 300,
      stopWaitMs: 20_000,
      keepAliveMs: 5_000,
    },
  });
  const deps = testAppDeps({ platform, now, logger }, services);
  return { deps, services, webhooks, adapters, logger, platform };
}

/** `POST /api/v2/live` with the server's key (or `apiKey`). */
export function startSession(server: TestServer, body: Record<string, unknown>, apiKey?: string): Promise<Answer> {
  return send(server, {
    method: "POST",
    path: "/api/v2/live",
    json: body,
    ...(apiKey ? { headers: { authorization: `Bearer ${apiKey}` } } : {}),
  });
}

/** Asserts a 202 of `POST /live` and answers the session's id. */
export function acceptedSession(answer: Answer): string {
  expect(answer.status, answer.text).toBe(202);
  const data = (answer.body as { data: { id: string; events_url: string; poll_url: string; status: string } }).data;
  expect(data.id).toMatch(/^live_[0-9A-Z]{26}$/);
  expect(data.events_url).toBe(`/api/v2/live/${data.id}/events`);
  expect(data.poll_url).toBe(`/api/v2/live/${data.id}`);
  return data.id;
}

/** A server-sent event of a session, its data parsed. */
export interface ReadEvent {
  id: string | null;
  event: string;
  // biome-ignore lint/suspicious/noExplicitAny: event bodies are read loosely and asserted field by field.
  data: any;
}

/**
 * Reads a session's event stream over real HTTP until it closes, `until` says stop, or `timeoutMs`
 * passes; with `lastEventId`, resumed after that event.
 */
export async function readEvents(
  server: TestServer,
  sessionId: string,
  options: { lastEventId?: number; until?: (event: ReadEvent, all: ReadEvent[]) => boolean; timeoutMs?: number } = {},
): Promise<ReadEvent[]> {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new Error("the event stream took too long")),
    options.timeoutMs ?? 60_000,
  );
  const events: ReadEvent[] = [];
  try {
    const response = await fetch(`${server.baseUrl}/api/v2/live/${sessionId}/events`, {
      headers: {
        authorization: `Bearer ${server.key.key}`,
        ...(options.lastEventId === undefined ? {} : { "last-event-id": String(options.lastEventId) }),
      },
      signal: controller.signal,
    });
    expect(response.status, await (response.ok ? Promise.resolve("") : response.text())).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    for await (const message of serverSentEvents(response.body as AsyncIterable<Uint8Array>)) {
      const event = parsed(message);
      events.push(event);
      if (options.until?.(event, events)) break;
    }
  } catch (error) {
    throw controller.signal.reason instanceof Error ? controller.signal.reason : error;
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
  return events;
}

function parsed(message: ServerSentEvent): ReadEvent {
  return { id: message.id, event: message.event, data: JSON.parse(message.data) };
}

/** Polls `GET /live/{id}` until `done` holds; answers the session. */
export async function sessionWhen(
  server: TestServer,
  sessionId: string,
  // biome-ignore lint/suspicious/noExplicitAny: the session is read loosely and asserted field by field.
  done: (session: any) => boolean,
  timeoutMs = 60_000,
  // biome-ignore lint/suspicious/noExplicitAny: as above.
): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await send(server, { method: "GET", path: `/api/v2/live/${sessionId}?limit=500` });
    expect(answer.status, answer.text).toBe(200);
    const session = (answer.body as { data: unknown }).data;
    if (done(session)) return session;
    if (Date.now() > deadline)
      throw new Error(`the session is not as awaited within ${timeoutMs} ms: ${answer.text.slice(0, 800)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** When each `live.segments` delivery of the session was handed to the deliverer, in order. */
export async function segmentDeliveryTimes(store: Store, sessionId: string): Promise<number[]> {
  const rows = await store.query<{ created_at: Date | string }>(
    sql`select created_at from webhook_deliveries
         where event_type = 'live.segments' and payload->>'session_id' = ${sessionId}
         order by created_at`,
  );
  return rows.map((row) => new Date(row.created_at).getTime());
}

/**
 * Segments are delivered at most once every `intervalMs`: each delivery but the last (which the
 * session's end sends at once) comes at least that long after the one before. A delivery's row
 * is timed when its batch was made, by the clock that spaces the batches.
 */
export function expectBatchedAtMostEvery(times: readonly number[], intervalMs: number): void {
  expect(times.length).toBeGreaterThan(0);
  const spacings = times.slice(1, -1).map((time, index) => time - (times[index] ?? 0));
  for (const spacing of spacings) expect(spacing).toBeGreaterThanOrEqual(intervalMs);
}

/** The stores of two API processes on one database, and how to close them. */
export interface TwoProcessStores {
  store: Store;
  /** The other process's: a pool of its own on PostgreSQL, where it hears NOTIFY on a connection of its own. */
  otherStore: Store;
  close(): Promise<void>;
}

/** Two pools on a fresh PostgreSQL database (`DATABASE_URL`), or the one embedded store both processes share. */
export async function openTwoProcessStores(): Promise<TwoProcessStores> {
  if (!process.env.DATABASE_URL) {
    const store = await openTestStore();
    return { store, otherStore: store, close: () => store.close() };
  }
  const database = await createPostgresDatabase(process.env.DATABASE_URL);
  const store = await openPostgresStore(database.url);
  const otherStore = await openPostgresStore(database.url);
  return {
    store,
    otherStore,
    async close() {
      await otherStore.close();
      await store.close();
      await database.drop();
    },
  };
}
