import { FakeYoutube } from "@verbatim/testkit/fake-youtube";
import { publishNewUploads, serveRecordedChannel } from "@verbatim/testkit/recorded-channel";
import { eq } from "drizzle-orm";
import type { SpeechEngine } from "../../src/adapters/asr/index.ts";
import type { YoutubeAdapter } from "../../src/adapters/youtube/index.ts";
import type { VideoListSource } from "../../src/adapters/youtube/video-lists.ts";
import { createPlatform } from "../../src/assembly/platform.ts";
import {
  buildServices,
  type JobSettings,
  type MonitorSettings,
  type ServiceSettings,
} from "../../src/assembly/services.ts";
import { createLogger } from "../../src/logger.ts";
import { MonthlyRefills } from "../../src/services/accounts/monthly-refills.ts";
import type { PlanName } from "../../src/services/accounts/plans.ts";
import { MonitorEvents } from "../../src/services/monitors/monitor-events.ts";
import type { Monitors } from "../../src/services/monitors/monitors.ts";
import type { Services } from "../../src/services/process-services.ts";
import { createWebhooks, type Webhooks } from "../../src/services/webhooks/webhook-deliverer.ts";
import type { Store } from "../../src/store/database.ts";
import { monitors } from "../../src/store/schema.ts";
import { Scheduler } from "../../src/workers/scheduler.ts";
import { buildTestAdapters, type TestAdapters } from "../support/adapters.ts";
import { serveApp, type TestServer, testAppDeps } from "../support/server.ts";
import { emptyStore, openTestStore } from "../support/store.ts";
import { type Receiver, startReceiver } from "../webhooks/receiver.ts";

/** A settable clock: every service of the harness reads it. */
export interface Clock {
  now(): Date;
  set(at: Date): void;
  advanceMinutes(minutes: number): void;
}

/** Starts now: webhook receivers check signatures' timestamps against the real time. */
export function fixedClock(start = new Date()): Clock {
  let current = start.getTime();
  return {
    now: () => new Date(current),
    set: (at) => {
      current = at.getTime();
    },
    advanceMinutes: (minutes) => {
      current += minutes * 60_000;
    },
  };
}

export interface MonitorHarness {
  server: TestServer;
  /** What the API's services were built from; another worker's services can be built from them too. */
  adapters: TestAdapters & { youtube: YoutubeAdapter };
  settings: ServiceSettings & { monitors: MonitorSettings };
  fake: FakeYoutube;
  /** A loopback webhook endpoint; `VERBATIM_ALLOW_PRIVATE_TARGETS` is on, so monitors may deliver to it. */
  receiver: Receiver;
  /** The monitor service the worker role's scheduler uses. */
  monitors: Monitors;
  scheduler: Scheduler;
  webhooks: Webhooks;
  clock: Clock;
  balance(): Promise<number | null>;
  /** The channel's newest page from now on: the recorded one with `newUploads` on top. */
  publishNewUploads(): void;
  close(): Promise<void>;
}

export interface MonitorHarnessOptions {
  plan?: PlanName;
  credits?: number | null;
  /** Whether a webhook may be http or on a private address (default true, so the loopback receiver works). */
  allowPrivateWebhooks?: boolean;
  /**
   * Speech recognition of captionless uploads, their audio from the fake, with this engine and
   * queue; jobs tell the monitors, as in main.ts.
   */
  speech?: { engine: SpeechEngine; jobs: JobSettings };
  /**
   * A store the harness empties and works on, and leaves open on `close`: tests of a file that
   * each start a harness share one (see `emptyStore`). Without it, the harness opens its own.
   */
  store?: Store;
}

/**
 * The API with monitors over a fake YouTube serving the recorded Creative Commons channel, a
 * webhook deliverer polling quickly, and the worker role's scheduler, which a test ticks itself
 * (`scheduler.tick()`) on a clock it sets.
 */
export async function startMonitorHarness(options: MonitorHarnessOptions = {}): Promise<MonitorHarness> {
  const clock = fixedClock();
  const now = () => clock.now();
  const fake = await FakeYoutube.start();
  serveRecordedChannel(fake);
  // Captions for two of the new uploads; the third (`authoredNW1`) was taken down.
  fake.serveRecordedVideos();
  const receiver = await startReceiver();
  const store = options.store ?? (await openTestStore());
  if (options.store) await emptyStore(options.store);
  const platform = await createPlatform(store, { now });
  const logger = createLogger("silent");
  const webhooks = createWebhooks(store, { logger, now, allowPrivateTargets: true, pollIntervalMs: 20 });
  const adapters = await buildTestAdapters({
    logger,
    youtube: {
      origin: fake.origin,
      // As in startYoutubeServer: on a loaded 2-core machine a loopback answer can take seconds, and no
      // monitor test waits on an upstream timeout of this adapter.
      attemptTimeoutMs: 2_500,
      budgetMs: 8_000,
      maxAttempts: 2,
      backoffBaseMs: 10,
    },
    ...(options.speech ? { web: {}, engine: options.speech.engine } : {}),
  });
  const { youtube } = adapters;
  if (!youtube) throw new Error("the harness's adapters have no YouTube");
  const settings = {
    platform,
    now,
    logger,
    allowPrivateTargets: options.allowPrivateWebhooks ?? true,
    ...(options.speech ? { jobs: options.speech.jobs } : {}),
    monitors: {
      events: new MonitorEvents(store, webhooks, now),
      // The server's port is not known before it listens; no test reads a scheduled check's docs links.
      docsBaseUrl: "http://127.0.0.1",
      random: () => 0,
    },
  };
  const services = buildServices(adapters, settings);
  const deps = testAppDeps({ platform, now, logger }, services);
  const server = await serveApp(deps, {
    plan: options.plan ?? "pro",
    ...(options.credits === undefined ? {} : { credits: options.credits }),
  });
  const monitors = monitorsOf(services);
  const scheduler = new Scheduler({ monitors, refills: new MonthlyRefills(store, now), logger });
  webhooks.start();
  return {
    server,
    adapters: { ...adapters, youtube },
    settings,
    fake,
    receiver,
    monitors,
    scheduler,
    webhooks,
    clock,
    balance: () => platform.credits.balance(server.account.id),
    publishNewUploads: () => publishNewUploads(fake),
    async close() {
      await scheduler.stop();
      await webhooks.stop();
      await server.close();
      platform.slots.close();
      await adapters.close();
      if (!options.store) await store.close();
      await receiver.close();
      await fake.close();
    },
  };
}

/** The monitor a `POST /monitors` answered; a refusal throws with its status and error body, which say why. */
export function createdMonitor<Monitor>(answer: {
  data?: { data: Monitor };
  error?: unknown;
  response: Response;
}): Monitor {
  if (!answer.data) throw new Error(`monitor not created: ${answer.response.status} ${JSON.stringify(answer.error)}`);
  return answer.data.data;
}

/**
 * Records a `monitor.videos` event reporting one YouTube video, as a check that found it would
 * (without charging or marking it seen): the event a transcript task owed for that video refers to.
 */
export async function recordReportedVideo(h: MonitorHarness, monitorId: string, videoId: string): Promise<string> {
  const { db } = h.server.platform.store;
  const [monitor] = await db.select().from(monitors).where(eq(monitors.id, monitorId));
  if (!monitor) throw new Error(`no monitor ${monitorId}`);
  const row = {
    videoId,
    url: `https://www.youtube.com/watch?v=${videoId}`,
    title: `Video ${videoId}`,
    duration: null,
    channel: null,
    publishedAt: null,
    stats: null,
    thumbnailUrl: null,
  };
  const event = await h.settings.monitors.events.record(
    monitor,
    "youtube",
    { type: "monitor.videos", data: { videos: [row] } },
    0,
    db,
  );
  return event.id;
}

/** Another worker's monitor service on the harness's database: what a second process would run. */
export function anotherWorker(
  h: MonitorHarness,
  options: { random?: () => number; claimSeconds?: number; lists?: VideoListSource } = {},
): Monitors {
  return monitorsOf(
    buildServices(
      options.lists ? { ...h.adapters, youtube: { ...h.adapters.youtube, lists: options.lists } } : h.adapters,
      {
        ...h.settings,
        monitors: {
          ...h.settings.monitors,
          ...(options.random ? { random: options.random } : {}),
          ...(options.claimSeconds === undefined ? {} : { claimSeconds: options.claimSeconds }),
        },
      },
    ),
  );
}

/** The monitor service of services built with YouTube lists and monitors, which always have one. */
function monitorsOf(services: Services): Monitors {
  if (!services.monitors) throw new Error("services built without YouTube lists or monitors have no monitor service");
  return services.monitors;
}
