import { sql } from "drizzle-orm";
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import { abandonedTranscriptionQueueName, transcriptionQueueName } from "./queue/job-queue.ts";
import type { Store } from "./store/database.ts";

/** Which allowance refused a request: the request or polling rate limit, the extraction slots, or the credit balance. */
export type RefusalKind = "requests" | "polling" | "slots" | "credits";

/** What became of one webhook attempt: delivered, to be retried, or the last one failed. */
export type WebhookAttemptOutcome = "delivered" | "retrying" | "failed";

/** The queues whose depth the metrics and the deep health check report. */
export const reportedQueues = [transcriptionQueueName, abandonedTranscriptionQueueName] as const;

/** Label of a request no operation of any document matched: raw paths would make the label unbounded. */
export const unmatchedOperation = "unmatched";

/**
 * The service's Prometheus metrics, on a registry of its own (never prom-client's global one):
 * each process, and each test, has its own. Counters and histograms are fed by the code that owns
 * each rule; the job, queue, delivery and pool figures are read from the database at scrape time
 * by `refresh`, so every process reports the whole deployment's queue the same way.
 */
export class ServiceMetrics {
  readonly registry = new Registry();

  private readonly requests = new Counter({
    name: "verbatim_http_requests_total",
    help: "HTTP requests answered, by OpenAPI operationId and status.",
    labelNames: ["operation", "status"] as const,
    registers: [this.registry],
  });

  private readonly requestDuration = new Histogram({
    name: "verbatim_http_request_duration_seconds",
    help: "Time from a request's arrival to the end of its response, by OpenAPI operationId and status.",
    labelNames: ["operation", "status"] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [this.registry],
  });

  private readonly refusals = new Counter({
    name: "verbatim_allowance_refusals_total",
    help: "Requests refused by an allowance: requests or polling (rate limit), slots (extraction slots) or credits.",
    labelNames: ["kind"] as const,
    registers: [this.registry],
  });

  private readonly upstreamFailures = new Counter({
    name: "verbatim_upstream_failures_total",
    help: "Requests answered with an upstream error (5xxx), by error code.",
    labelNames: ["code"] as const,
    registers: [this.registry],
  });

  private readonly webhookAttempts = new Counter({
    name: "verbatim_webhook_attempts_total",
    help: "Webhook delivery attempts made by this process, by outcome (delivered, retrying, failed).",
    labelNames: ["outcome"] as const,
    registers: [this.registry],
  });

  private readonly speechSeconds = new Counter({
    name: "verbatim_speech_recognition_audio_seconds_total",
    help: "Seconds of audio recognised by this process.",
    registers: [this.registry],
  });

  private readonly speechRealTimeFactor = new Histogram({
    name: "verbatim_speech_recognition_real_time_factor",
    help: "Recognition time divided by the audio's duration, per recognition.",
    buckets: [0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2],
    registers: [this.registry],
  });

  private readonly jobs = new Gauge({
    name: "verbatim_jobs",
    help: "Speech recognition jobs of the deployment: queued and running (queue), completed and failed (job rows).",
    labelNames: ["state"] as const,
    registers: [this.registry],
  });

  private readonly jobAge = new Gauge({
    name: "verbatim_jobs_oldest_age_seconds",
    help: "Age of the oldest queued job (since it was queued) and the oldest running one (since it started).",
    labelNames: ["state"] as const,
    registers: [this.registry],
  });

  private readonly queueDepth = new Gauge({
    name: "verbatim_queue_jobs",
    help: "Messages of each job queue by state: queued (waiting or to be retried) and active.",
    labelNames: ["queue", "state"] as const,
    registers: [this.registry],
  });

  private readonly webhookDeliveries = new Gauge({
    name: "verbatim_webhook_deliveries",
    help: "Webhook deliveries of the deployment by status: pending, delivered, failed.",
    labelNames: ["status"] as const,
    registers: [this.registry],
  });

  private readonly oldestPendingDelivery = new Gauge({
    name: "verbatim_webhook_oldest_pending_age_seconds",
    help: "Age of the oldest webhook delivery not yet delivered or failed.",
    registers: [this.registry],
  });

  private readonly databaseUp = new Gauge({
    name: "verbatim_database_up",
    help: "1 when the scrape could read the database, 0 when it could not.",
    labelNames: ["engine"] as const,
    registers: [this.registry],
  });

  private readonly poolConnections = new Gauge({
    name: "verbatim_database_pool_connections",
    help: "Connections of this process's PostgreSQL pool: total, idle, and queries waiting for one. The embedded engine has one session.",
    labelNames: ["state"] as const,
    registers: [this.registry],
  });

  /** Counts one answered request of an operation. */
  requestAnswered(operation: string, status: number, seconds: number): void {
    const labels = { operation, status: String(status) };
    this.requests.inc(labels);
    this.requestDuration.observe(labels, seconds);
  }

  allowanceRefused(kind: RefusalKind): void {
    this.refusals.inc({ kind });
  }

  upstreamFailed(code: string): void {
    this.upstreamFailures.inc({ code });
  }

  webhookAttempted(outcome: WebhookAttemptOutcome): void {
    this.webhookAttempts.inc({ outcome });
  }

  speechRecognised(audioSeconds: number, elapsedSeconds: number): void {
    this.speechSeconds.inc(audioSeconds);
    if (audioSeconds > 0) this.speechRealTimeFactor.observe(elapsedSeconds / audioSeconds);
  }

  /**
   * Reads the deployment's jobs, queues and deliveries from the database. A database that cannot
   * be read leaves those gauges out and reports `verbatim_database_up 0`: the scrape still answers.
   */
  async refresh(store: Store): Promise<void> {
    const gauges = [this.jobs, this.jobAge, this.queueDepth, this.webhookDeliveries, this.oldestPendingDelivery];
    for (const gauge of gauges) gauge.reset();
    this.databaseUp.reset();
    this.poolConnections.reset();
    const pool = store.pool?.();
    if (pool) {
      this.poolConnections.set({ state: "total" }, pool.total);
      this.poolConnections.set({ state: "idle" }, pool.idle);
      this.poolConnections.set({ state: "waiting" }, pool.waiting);
    }
    try {
      const figures = await readFigures(store);
      for (const queue of figures.queues) {
        this.queueDepth.set({ queue: queue.name, state: "queued" }, queue.queued);
        this.queueDepth.set({ queue: queue.name, state: "active" }, queue.active);
      }
      const transcription = figures.queues.find((queue) => queue.name === transcriptionQueueName);
      this.jobs.set({ state: "queued" }, transcription?.queued ?? 0);
      this.jobs.set({ state: "running" }, transcription?.active ?? 0);
      this.jobs.set({ state: "completed" }, figures.jobs.completed);
      this.jobs.set({ state: "failed" }, figures.jobs.failed);
      this.jobAge.set({ state: "queued" }, transcription?.oldestQueuedSeconds ?? 0);
      this.jobAge.set({ state: "running" }, transcription?.oldestActiveSeconds ?? 0);
      for (const status of ["pending", "delivered", "failed"] as const) {
        this.webhookDeliveries.set({ status }, figures.deliveries[status]);
      }
      this.oldestPendingDelivery.set(figures.deliveries.oldestPendingSeconds);
      this.databaseUp.set({ engine: store.engine }, 1);
    } catch {
      this.databaseUp.set({ engine: store.engine }, 0);
    }
  }

  /** The exposition text, in the Prometheus text format. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}

/** One job queue's depth, as the metrics and the deep health check report it. */
export interface QueueDepth {
  name: (typeof reportedQueues)[number];
  /** Waiting to run, or to be retried. */
  queued: number;
  /** Claimed by a worker now. */
  active: number;
  oldestQueuedSeconds: number;
  oldestActiveSeconds: number;
}

/** The depth of each reported queue, read from pg-boss's job table (empty until a process has started the queue). */
export async function readQueueDepths(store: Store): Promise<QueueDepth[]> {
  const [queueTable] = await store.query<{ present: boolean }>(
    sql`select to_regclass('pgboss.job') is not null as present`,
  );
  const rows = !queueTable?.present
    ? []
    : await store.query<{
        name: string;
        queued: number;
        active: number;
        oldest_queued: number | null;
        oldest_active: number | null;
      }>(sql`
    select name,
           count(*) filter (where state in ('created', 'retry'))::int as queued,
           count(*) filter (where state = 'active')::int as active,
           extract(epoch from now() - min(created_on) filter (where state in ('created', 'retry')))::float8 as oldest_queued,
           extract(epoch from now() - min(started_on) filter (where state = 'active'))::float8 as oldest_active
      from pgboss.job
     where name in (${sql.join(
       reportedQueues.map((name) => sql`${name}`),
       sql`, `,
     )})
       and state in ('created', 'retry', 'active')
     group by name`);
  return reportedQueues.map((name) => {
    const row = rows.find((candidate) => candidate.name === name);
    return {
      name,
      queued: row?.queued ?? 0,
      active: row?.active ?? 0,
      oldestQueuedSeconds: Math.max(0, row?.oldest_queued ?? 0),
      oldestActiveSeconds: Math.max(0, row?.oldest_active ?? 0),
    };
  });
}

async function readFigures(store: Store) {
  const queues = await readQueueDepths(store);
  const jobRows = await store.query<{ status: string; count: number }>(
    sql`select status, count(*)::int as count from transcript_jobs where status in ('completed', 'failed') group by status`,
  );
  const [deliveries] = await store.query<{
    pending: number;
    delivered: number;
    failed: number;
    oldest_pending: number | null;
  }>(sql`
    select count(*) filter (where status = 'pending')::int as pending,
           count(*) filter (where status = 'delivered')::int as delivered,
           count(*) filter (where status = 'failed')::int as failed,
           extract(epoch from now() - min(created_at) filter (where status = 'pending'))::float8 as oldest_pending
      from webhook_deliveries`);
  const jobCount = (status: string) => jobRows.find((row) => row.status === status)?.count ?? 0;
  return {
    queues,
    jobs: { completed: jobCount("completed"), failed: jobCount("failed") },
    deliveries: {
      pending: deliveries?.pending ?? 0,
      delivered: deliveries?.delivered ?? 0,
      failed: deliveries?.failed ?? 0,
      oldestPendingSeconds: Math.max(0, deliveries?.oldest_pending ?? 0),
    },
  };
}
