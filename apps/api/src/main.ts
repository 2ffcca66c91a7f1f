import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { createSpeechEngine } from "./adapters/asr/index.ts";
import { startAdminServer } from "./admin/server.ts";
import { createApp } from "./app.ts";
import { buildAdapters } from "./assembly/adapters.ts";
import { createPlatform } from "./assembly/platform.ts";
import { buildServices, serviceSettingsFrom } from "./assembly/services.ts";
import { loadConfig } from "./config.ts";
import type { FaultPoint } from "./http/app-deps.ts";
import { errorHandler } from "./http/error-handler.ts";
import { createHttpServer } from "./http/http-server.ts";
import { metricsEndpoint } from "./http/metrics.ts";
import { createLogger } from "./logger.ts";
import { ServiceMetrics } from "./metrics.ts";
import { startJobQueue } from "./queue/job-queue.ts";
import { MonthlyRefills } from "./services/accounts/index.ts";
import { MonitorEvents } from "./services/monitors/index.ts";
import { HeartbeatWriter } from "./services/operations/index.ts";
import { createWebhooks } from "./services/webhooks/index.ts";
import type { Store } from "./store/database.ts";
import { adminSocketPath, DataDirectoryBusyError, openConfiguredStore } from "./store/open.ts";
import { LiveWorkers } from "./workers/live-workers.ts";
import { Scheduler } from "./workers/scheduler.ts";
import { PgBossTranscriptionQueue, transcriptionQueues } from "./workers/transcription-queue.ts";
import { startTranscriptionWorker } from "./workers/transcription-worker.ts";

const config = startOrExit(() => loadConfig(process.env));
// Before anything opens: a speech engine that cannot load stops start-up at once, like a bad configuration value.
const speechEngine = startOrExit(() => createSpeechEngine(config.speech));
const logger = createLogger(config.logLevel);
const now = () => new Date();
const metrics = new ServiceMetrics();

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
const platform = await createPlatform(store, { now, idempotencyLockSeconds: config.idempotencyLockSeconds });

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

// Transcription attempts after the first. A worker killed mid-job costs one, and so does a worker
// stopped whose grace ran out before the job did (pg-boss fails what it hands back): a job may meet
// a crash, a lapsed heartbeat and a rolling restart and still complete.
const jobRetryLimit = 3;
const boss = await startJobQueue(
  store,
  transcriptionQueues({ heartbeatSeconds: config.jobs.heartbeatSeconds, retryLimit: jobRetryLimit }),
  logger,
  lapsedHeartbeatChecks(config.jobs.heartbeatSeconds),
);
// VERBATIM_CA_FILE: every upstream TLS connection trusts its authorities as well.
const ca = config.platforms.ca ? { ca: config.platforms.ca } : {};
const webhooks = createWebhooks(store, {
  ...ca,
  logger,
  now,
  retryDelaysMs: config.webhooks.retryDelaysMs,
  allowPrivateTargets: config.allowPrivateTargets,
  metrics,
});
const monitorEvents = new MonitorEvents(store, webhooks, now);
const adapters = await buildAdapters(config, { logger, metrics, engine: speechEngine });
const services = buildServices(
  adapters,
  serviceSettingsFrom(config, {
    platform,
    now,
    logger,
    queue: new PgBossTranscriptionQueue(boss),
    webhooks,
    monitorEvents,
  }),
);
const scheduler = new Scheduler({
  ...(services.monitors ? { monitors: services.monitors } : {}),
  refills: new MonthlyRefills(store, now),
  logger,
  tickMs: config.scheduler.tickSeconds * 1000,
});

const heartbeat = runsWorkers ? new HeartbeatWriter(store, { now, logger }) : undefined;
const liveWorkers =
  runsWorkers && services.liveWork && config.live.sessions > 0
    ? new LiveWorkers(services.liveWork.runner, services.liveWork.store, {
        capacity: config.live.sessions,
        leaseSeconds: config.live.leaseSeconds,
        pollMs: 1_000,
        ...(heartbeat ? { owner: heartbeat.id } : {}),
        logger,
      })
    : undefined;
if (runsWorkers) {
  await heartbeat?.start();
  await startTranscriptionWorker(boss, services.speechJobs, {
    workers: config.jobs.workers,
    pollSeconds: config.jobs.pollSeconds,
    retryLimit: jobRetryLimit,
    jobSlots: platform.jobSlots,
    logger,
  });
  webhooks.start();
  scheduler.start();
  liveWorkers?.start();
}

let server: Server | undefined;
if (servesApi) {
  const app = createApp({
    config: {
      version: config.version,
      batchDeadlineMs: config.batchDeadlineSeconds * 1000,
      ...(config.publicUrl ? { publicUrl: config.publicUrl } : {}),
      ...(config.operations.metricsToken ? { metricsToken: config.operations.metricsToken } : {}),
      mcpAllowedOrigins: config.mcpAllowedOrigins,
      liveEventStreamsPerAccount: config.live.eventStreamsPerAccount,
    },
    logger,
    now,
    platform,
    metrics,
    services,
    ...(!import.meta.withoutTestFaults && config.testFaults.length > 0 ? { faultPoint: dieAt(config.testFaults) } : {}),
  });
  const listening = createHttpServer(app).listen(config.port, config.host, () => {
    const { address, port } = listening.address() as AddressInfo;
    logger.info(
      { address, port, role, engine: store.engine, data_dir: store.engine === "embedded" ? config.dataDir : undefined },
      `Verbatim listening on http://${address}:${port}/api/v2`,
    );
  });
  server = listening;
} else {
  logger.info(
    { role, engine: store.engine, workers: config.jobs.workers, worker_id: heartbeat?.id },
    "Verbatim worker running",
  );
}

// A worker-only process serves its own metrics (its jobs' recognition, its webhook attempts) where the operator asks.
let metricsServer: Server | undefined;
if (!servesApi && config.operations.metricsPort !== undefined) {
  const { metricsPort, metricsToken } = config.operations;
  const metricsApp = express();
  metricsApp.disable("x-powered-by");
  metricsApp.set("trust proxy", "loopback");
  metricsApp.use(metricsEndpoint(metrics, store, { token: metricsToken }));
  metricsApp.use(errorHandler({ config: { version: config.version }, logger, now, platform, metrics, services }));
  const listening = createHttpServer(metricsApp).listen(metricsPort, config.host, () => {
    const { address, port } = listening.address() as AddressInfo;
    logger.info({ address, port }, `Verbatim worker metrics on http://${address}:${port}/metrics`);
  });
  metricsServer = listening;
}

const graceMs = config.operations.shutdownGraceSeconds * 1000;

// A second signal must not cut the shutdown short: Ctrl-C and systemd signal the whole process group.
let stopping = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    // The grace, then room for webhooks in flight (10 s each) and closing.
    setTimeout(() => process.exit(1), graceMs + 30_000).unref();
    logger.info({ signal, grace_seconds: config.operations.shutdownGraceSeconds }, "shutting down");
    clearInterval(housekeeping);
    admin?.close();
    shutDown().then(
      () => {
        logger.info("stopped");
        process.exit(0);
      },
      (err: unknown) => {
        logger.error({ err }, "shutdown failed");
        process.exit(1);
      },
    );
  });
}

/**
 * Stops listening at once, and lets requests in flight and running job attempts finish within
 * the grace. Then it cuts the requests left and hands the jobs left back to the queue (pg-boss
 * fails them as retryable, so another worker takes them up without waiting for a heartbeat to
 * lapse; they are charged only when they complete), gives back this process's slots, and closes.
 */
async function shutDown(): Promise<void> {
  await Promise.all([drainRequests(server), drainRequests(metricsServer), stopJobs()]);
  await webhooks.stop();
  await services.liveWork?.feed.close();
  await adapters.close();
  await platform.slots.releaseAll();
  await platform.jobSlots.releaseAll();
  await heartbeat?.stop();
  await store.close();
}

/** Refuses new connections, closes keep-alive connections as their requests end, and cuts what is left after the grace. */
async function drainRequests(listening: Server | undefined): Promise<void> {
  if (!listening) return;
  const closed = new Promise<void>((resolve) => listening.close(() => resolve()));
  const idle = setInterval(() => listening.closeIdleConnections(), 100);
  const cut = setTimeout(() => listening.closeAllConnections(), graceMs);
  listening.closeIdleConnections();
  try {
    await closed;
  } finally {
    clearInterval(idle);
    clearTimeout(cut);
  }
}

async function stopJobs(): Promise<void> {
  await scheduler.stop();
  // A live session cannot wait out a grace: it is handed back at once, and another worker resumes it.
  await liveWorkers?.stop();
  // pg-boss waits at least a second when graceful; no grace means handing the jobs back now.
  await boss.stop({ graceful: graceMs > 0, timeout: graceMs, close: false });
}

/** A dead worker's job is noticed by pg-boss's monitor pass: run it a few times per heartbeat, not once a minute. */
function lapsedHeartbeatChecks(heartbeatSeconds: number) {
  const seconds = Math.max(1, Math.floor(heartbeatSeconds / 4));
  return { superviseIntervalSeconds: seconds, monitorIntervalSeconds: seconds };
}

/** Kills the process at the fault points `VERBATIM_TEST_FAULTS` names, as a crash would: no shutdown, no cleanup. */
function dieAt(points: readonly FaultPoint[]): (point: FaultPoint) => void {
  return (point) => {
    if (!points.includes(point)) return;
    process.stdout.write(`test fault ${point}: the process dies here\n`);
    process.kill(process.pid, "SIGKILL");
  };
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
