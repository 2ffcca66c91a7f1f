import { type FakePodcastHost, startFakePodcastHost } from "@verbatim/testkit/fake-podcast-host";
import type { FakeYoutube } from "@verbatim/testkit/fake-youtube";
import type { PlatformDouble } from "@verbatim/testkit/platform-double";
import { SherpaOnnxSpeechEngine, type SpeechEngine } from "../../src/adapters/asr/index.ts";
import type { ResolveAll } from "../../src/adapters/net/address-rule.ts";
import type { ThroughputFloorSettings } from "../../src/adapters/net/throughput-floor.ts";
import { createPlatform } from "../../src/assembly/platform.ts";
import { buildServices, type JobSettings, type ServiceSettings } from "../../src/assembly/services.ts";
import { createLogger } from "../../src/logger.ts";
import { type PgBoss, startJobQueue } from "../../src/queue/job-queue.ts";
import type { PlanName } from "../../src/services/accounts/plans.ts";
import { MonitorEvents } from "../../src/services/monitors/monitor-events.ts";
import type { Monitors } from "../../src/services/monitors/monitors.ts";
import { createWebhooks } from "../../src/services/webhooks/webhook-deliverer.ts";
import type { WebhookOutbox } from "../../src/services/webhooks/webhook-events.ts";
import type { SpotifyCredentials } from "../../src/sources/spotify/spotify-web-api.ts";
import type { YtdlpEngine } from "../../src/sources/ytdlp/find-ytdlp.ts";
import type { Store } from "../../src/store/database.ts";
import { PgBossTranscriptionQueue, transcriptionQueues } from "../../src/workers/transcription-queue.ts";
import { startTranscriptionWorker, type TranscriptionWorker } from "../../src/workers/transcription-worker.ts";
import { buildTestAdapters, type TestAdapters, type TestPlatformSources } from "../support/adapters.ts";
import { serveApp, type TestServer, testAppDeps } from "../support/server.ts";
import { openTestStore } from "../support/store.ts";

/** The shipped model, loaded once per test file. */
export const sharedEngine: SpeechEngine = new SherpaOnnxSpeechEngine();

/** Attempts after the first in tests; as in production, the last one records a transient failure. */
export const testRetryLimit = 1;

export interface AudioServerOptions {
  plan?: PlanName;
  credits?: number | null;
  /** Default 30, as in production. */
  inlineAudioSeconds?: number;
  maxQueuedJobs?: number;
  /** Workers of this process; 0 starts none (jobs stay queued). Default 2. */
  workers?: number;
  engine?: SpeechEngine;
  webhooks?: (store: Store) => WebhookOutbox;
  /**
   * Delivers job callbacks as main.ts does, with a deliverer polling every 50 ms that starts and
   * stops with the server; `callback_url` may then be a loopback http receiver. Ignores `webhooks`.
   */
  deliverCallbacks?: boolean;
  /** Serves YouTube (pages, captions and audio streams) from this fake; without it YouTube is not configured. */
  youtube?: FakeYoutube;
  /** `VERBATIM_ALLOW_PRIVATE_TARGETS=1` for `callback_url`: http and loopback receivers are accepted. Default false. */
  allowPrivateCallbackTargets?: boolean;
  /** Resolves `callback_url` hosts at request time; default `dns.lookup`. */
  resolveAll?: ResolveAll;
  /** How long parsing one fetched document may take; default the adapter's. */
  parseDeadlineMs?: number;
  /** The slowest a media download may run; default the adapter's. */
  downloadFloor?: ThroughputFloorSettings;
  /** Reads the video platforms with yt-dlp through this double (`buildTestAdapters`); without it, none. */
  platformDouble?: PlatformDouble;
  /** The yt-dlp extractors allowed, with `platformDouble`; default yt-dlp's default list. */
  platformExtractors?: readonly string[];
  /** The yt-dlp run, with `platformDouble`; default the project's; null for none, as on a server without it. */
  platformYtdlp?: YtdlpEngine | null;
  /** Without `platformDouble`: reads the video platforms through these sources, closed with the server. */
  platforms?: TestPlatformSources;
  /** Reads Apple Podcasts and Spotify links, and every feed, page and media file, through this double. */
  podcastDouble?: PlatformDouble;
  /** Spotify's Web API credentials, with `podcastDouble`, whose Spotify folder answers any; default none. */
  spotify?: SpotifyCredentials;
  /**
   * Monitors of anything the lists read (the double's profiles, the fake host's feeds), their
   * events delivered by a deliverer polling every 50 ms, as with `deliverCallbacks`.
   */
  monitors?: boolean;
}

/** A server with audio transcripts over a fresh store, a fake podcast host serving the media, and (by default) its workers. */
export interface AudioServer extends TestServer {
  store: Store;
  boss: PgBoss;
  host: FakePodcastHost;
  /** What the server's services were built from: another process's, or another app's, can be built from them. */
  adapters: TestAdapters & Required<Pick<TestAdapters, "audioSources" | "engine">>;
  settings: ServiceSettings & { jobs: JobSettings };
  /** The monitor service, with `monitors`: the worker role's scheduled checks run through it. */
  monitors?: Monitors;
  /** Starts this process's workers (again, after `stopWorkers`). */
  startWorkers(workers?: number): Promise<void>;
  stopWorkers(): Promise<void>;
}

export async function startAudioServer(options: AudioServerOptions = {}): Promise<AudioServer> {
  const now = () => new Date();
  const logger = createLogger("silent");
  const store = await openTestStore();
  const platform = await createPlatform(store, { now });
  const boss = await startJobQueue(
    store,
    transcriptionQueues({ heartbeatSeconds: 10, retryLimit: testRetryLimit }),
    logger,
    { superviseIntervalSeconds: 1, monitorIntervalSeconds: 1 },
  );
  const host = await startFakePodcastHost();
  const { downloadFloor, parseDeadlineMs, platformDouble, youtube } = options;
  const limits = {
    ...(downloadFloor ? { downloadFloor } : {}),
    ...(parseDeadlineMs === undefined ? {} : { parseDeadlineMs }),
  };
  const adapters = await buildTestAdapters({
    logger,
    web: { podcastDouble: options.podcastDouble, spotify: options.spotify, limits },
    youtube: youtube && {
      origin: youtube.origin,
      attemptTimeoutMs: 2_000,
      budgetMs: 5_000,
      backoffBaseMs: 10,
      ...limits,
    },
    platforms: platformDouble
      ? { double: platformDouble, extractors: options.platformExtractors, ytdlp: options.platformYtdlp }
      : options.platforms,
    engine: options.engine ?? sharedEngine,
  });
  const callbacks =
    options.deliverCallbacks || options.monitors
      ? createWebhooks(store, { logger, allowPrivateTargets: true, pollIntervalMs: 50 })
      : undefined;
  const settings = {
    platform,
    now,
    logger,
    allowPrivateTargets: Boolean(options.allowPrivateCallbackTargets || callbacks),
    resolveAll: options.resolveAll,
    webhooks: callbacks ?? options.webhooks?.(store),
    jobs: {
      queue: new PgBossTranscriptionQueue(boss),
      inlineAudioSeconds: options.inlineAudioSeconds ?? 30,
      maxQueuedJobs: options.maxQueuedJobs ?? 1000,
    },
    monitors:
      options.monitors && callbacks
        ? { events: new MonitorEvents(store, callbacks, now), docsBaseUrl: "http://127.0.0.1", random: () => 0 }
        : undefined,
  };
  const services = buildServices(adapters, settings);
  const served = await serveApp(testAppDeps(settings, services), { ...options, name: "audio test" });
  let worker: TranscriptionWorker | undefined;
  const startWorkers = async (workers = options.workers ?? 2) => {
    if (workers === 0) return;
    const jobOptions = { workers, pollSeconds: 0.5, retryLimit: testRetryLimit, jobSlots: platform.jobSlots, logger };
    worker = await startTranscriptionWorker(boss, services.speechJobs, jobOptions);
  };
  const stopWorkers = async () => {
    await worker?.stop();
    worker = undefined;
  };
  await startWorkers();
  callbacks?.start();
  return {
    ...served,
    store,
    boss,
    host,
    adapters,
    settings,
    ...(services.monitors ? { monitors: services.monitors } : {}),
    startWorkers,
    stopWorkers,
    async close() {
      await stopWorkers();
      // Before the store closes: an attempt in flight records its outcome there.
      await callbacks?.stop();
      await boss.stop({ graceful: false, close: false });
      await served.close();
      await host.close();
      await adapters.close();
      platform.slots.close();
      await store.close();
    },
  };
}
