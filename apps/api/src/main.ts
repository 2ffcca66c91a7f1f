import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createSpeechEngine } from "./adapters/asr/index.ts";
import { createAudioSources } from "./adapters/audio-sources/index.ts";
import { createYoutubeAdapter } from "./adapters/youtube/index.ts";
import { startAdminServer } from "./admin/server.ts";
import { createApp } from "./app.ts";
import { loadConfig } from "./config.ts";
import { createLogger } from "./logger.ts";
import { createPlatform } from "./platform.ts";
import { startJobQueue } from "./queue/job-queue.ts";
import { createAudioTranscripts } from "./services/audio-transcripts.ts";
import { MonitorEvents } from "./services/monitor-events.ts";
import { createMonitors } from "./services/monitors.ts";
import { MonthlyRefills } from "./services/monthly-refills.ts";
import { createTranscripts } from "./services/transcripts.ts";
import { createWebhooks } from "./services/webhooks.ts";
import type { Store } from "./store/database.ts";
import { adminSocketPath, DataDirectoryBusyError, openConfiguredStore } from "./store/open.ts";
import { Scheduler } from "./workers/scheduler.ts";
import { PgBossTranscriptionQueue, transcriptionQueues } from "./workers/transcription-queue.ts";
import { startTranscriptionWorker } from "./workers/transcription-worker.ts";

const config = startOrExit(() => loadConfig(process.env));
// Before anything opens: a bad speech setting stops start-up at once, like a bad configuration value.
const speechEngine = startOrExit(() => createSpeechEngine(process.env));
const logger = createLogger(config.logLevel);
const now = () => new Date();

const store: Store = await openConfiguredStore(
  config,
  (err) => logger.warn({ err }, "database connection closed"),
  (previousMode) =>
    logger.warn(
      { data_dir: config.dataDir, previous_mode: previousMode.toString(8), mode: "700" },
      "the data directory was open to other users; it is now private",
    ),
).catch((error: unknown) => {
  if (error instanceof DataDirectoryBusyError) exitWith(`${error.message}. Stop it first, or set VERBATIM_DATA_DIR.`);
  throw error;
});
const platform = await createPlatform(store, { now });

const { role } = config.jobs;
const servesApi = role !== "worker";
const runsWorkers = role !== "api";

if (servesApi && (await platform.accounts.list()).length === 0) {
  const { account, key } = await platform.accounts.create({ plan: "pro", name: "development" });
  process.stdout.write(
    `\nCreated a development account ${account.id} on the ${account.plan} plan with ${account.credits} credits.\n` +
      `Its API key, shown only this once:\n\n    ${key.key}\n\n` +
      `Manage accounts and keys with \`pnpm verbatim --help\`.\n\n`,
  );
}

const admin =
  store.engine === "embedded" ? await startAdminServer(platform, adminSocketPath(config.dataDir), logger) : undefined;
const housekeeping = setInterval(() => {
  platform.idempotency.sweep().catch((err: unknown) => logger.warn({ err }, "idempotency sweep failed"));
  platform.listCursors.sweep().catch((err: unknown) => logger.warn({ err }, "list cursor sweep failed"));
}, 60_000);
housekeeping.unref();

// Transcription attempts after the first: a worker killed mid-job costs one.
const jobRetryLimit = 2;
const boss = await startJobQueue(
  store,
  transcriptionQueues({ heartbeatSeconds: config.jobs.heartbeatSeconds, retryLimit: jobRetryLimit }),
  logger,
  lapsedHeartbeatChecks(config.jobs.heartbeatSeconds),
);
const webhooks = createWebhooks(store, {
  logger,
  now,
  retryDelaysMs: config.webhooks.retryDelaysMs,
  allowPrivateTargets: config.allowPrivateTargets,
});
const monitorEvents = new MonitorEvents(store, webhooks, now);
const audioSources = createAudioSources({
  allowPrivateTargets: config.allowPrivateTargets,
  logger,
  ...config.downloads,
});
const youtube = createYoutubeAdapter(config.youtube);
const audio = {
  sources: audioSources,
  youtube: youtube.audio,
  engine: speechEngine,
  queue: new PgBossTranscriptionQueue(boss),
  inlineAudioSeconds: config.jobs.inlineAudioSeconds,
  maxQueuedJobs: config.jobs.maxQueuedJobs,
  webhooks,
  jobFollowers: [monitorEvents],
  allowPrivateCallbackTargets: config.allowPrivateTargets,
};
const monitorDeps = { events: monitorEvents, webhookTargets: { allowPrivateTargets: config.allowPrivateTargets } };
const scheduler = new Scheduler({
  monitors: createMonitors(
    { platform, now, logger },
    {
      lists: youtube.lists,
      transcripts: createTranscripts({ platform, youtube, audio, now, logger }),
      monitors: monitorDeps,
      docsBaseUrl: config.publicUrl ?? `http://${config.host}:${config.port}`,
      claimSeconds: config.scheduler.claimSeconds,
    },
  ),
  refills: new MonthlyRefills(store, now),
  logger,
  tickMs: config.scheduler.tickSeconds * 1000,
});

if (runsWorkers) {
  await startTranscriptionWorker(boss, createAudioTranscripts(platform, audio, { now, logger }), {
    workers: config.jobs.workers,
    pollSeconds: config.jobs.pollSeconds,
    retryLimit: jobRetryLimit,
    jobSlots: platform.jobSlots,
    logger,
  });
  webhooks.start();
  scheduler.start();
}

let server: Server | undefined;
if (servesApi) {
  const app = createApp({
    config: {
      version: config.version,
      batchDeadlineMs: config.batchDeadlineSeconds * 1000,
      ...(config.publicUrl ? { publicUrl: config.publicUrl } : {}),
    },
    logger,
    now,
    platform,
    youtube,
    audio,
    monitors: monitorDeps,
  });
  const listening = app.listen(config.port, config.host, () => {
    const { address, port } = listening.address() as AddressInfo;
    logger.info(
      { address, port, role, engine: store.engine, data_dir: store.engine === "embedded" ? config.dataDir : undefined },
      `Verbatim listening on http://${address}:${port}/api/v2`,
    );
  });
  server = listening;
} else {
  logger.info({ role, engine: store.engine, workers: config.jobs.workers }, "Verbatim worker running");
}

// A second signal must not cut the shutdown short: Ctrl-C and systemd signal the whole process group.
let stopping = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    setTimeout(() => process.exit(1), 30_000).unref();
    logger.info({ signal }, "shutting down");
    clearInterval(housekeeping);
    admin?.close();
    shutDown().finally(() => process.exit(0));
  });
}

/**
 * Stops taking requests, then jobs: running attempts get 20 s to finish; one still running then
 * is retried by another worker once its heartbeat lapses, and charged only when it completes.
 */
async function shutDown(): Promise<void> {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await scheduler.stop();
  await boss.stop({ graceful: true, timeout: 20_000, close: false });
  await webhooks.stop();
  await audioSources.close();
  platform.slots.close();
  platform.jobSlots.close();
  await store.close();
}

/** A dead worker's job is noticed by pg-boss's monitor pass: run it a few times per heartbeat, not once a minute. */
function lapsedHeartbeatChecks(heartbeatSeconds: number) {
  const seconds = Math.max(1, Math.floor(heartbeatSeconds / 4));
  return { superviseIntervalSeconds: seconds, monitorIntervalSeconds: seconds };
}

/** Start-up problems an operator can fix are one line on stderr, not a stack trace. */
function startOrExit<T>(step: () => T): T {
  try {
    return step();
  } catch (error) {
    return exitWith(error instanceof Error ? error.message : String(error));
  }
}

function exitWith(message: string): never {
  process.stderr.write(`verbatim: ${message}\n`);
  process.exit(1);
}
