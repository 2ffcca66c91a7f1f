import { type ConstructorOptions, PgBoss, type Queue } from "pg-boss";
import type { Logger } from "../logger.ts";
import type { Store } from "../store/database.ts";

export type { Job, PgBoss } from "pg-boss";

/** The queue of speech recognition jobs; each message names one `transcript_jobs` row. */
export const transcriptionQueueName = "transcribe-audio";

/** Where pg-boss moves a message whose every attempt died (killed worker, lost heartbeat): its job is failed there. */
export const abandonedTranscriptionQueueName = "transcribe-audio-abandoned";

/**
 * How often pg-boss's supervisor runs, and how often it looks at each queue for expired jobs and
 * lapsed heartbeats (its monitor pass); both default to 60 s.
 */
export type JobQueueTimings = Pick<ConstructorOptions, "superviseIntervalSeconds" | "monitorIntervalSeconds">;

/** The schema pg-boss keeps its tables in, beside ours. */
const queueSchema = "pgboss";

/** Serialises pg-boss's start (it creates its schema without a lock) across processes starting together. */
const queueSetUpLockId = 7_306_129_467;

/**
 * Starts the durable job queue (pg-boss) on the service's own database: PGlite embedded, or
 * PostgreSQL when several processes share the work. Creates the given queues and warms
 * pg-boss's queue cache, because a first `send` inside a PGlite transaction would otherwise
 * wait for the session that transaction holds.
 */
export async function startJobQueue(
  store: Store,
  queues: readonly Queue[],
  logger: Logger,
  timings: JobQueueTimings = {},
): Promise<PgBoss> {
  const boss = new PgBoss({ db: { executeSql: store.executeSql }, schema: queueSchema, ...timings });
  boss.on("error", (err) => logger.error({ err }, "job queue error"));
  await store.exclusively(queueSetUpLockId, async () => {
    await boss.start();
    for (const queue of queues) {
      const { name, ...options } = queue;
      await boss.createQueue(name, options);
      await boss.updateQueue(name, options);
    }
  });
  for (const queue of queues) {
    // A lookup by an id no job has fills the cache without claiming a job.
    await boss.getJobById(queue.name, "00000000-0000-0000-0000-000000000000");
  }
  return boss;
}
