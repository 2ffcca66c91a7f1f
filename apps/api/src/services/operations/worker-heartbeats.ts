import { eq, lt, sql } from "drizzle-orm";
import { newId } from "../../ids.ts";
import type { Logger } from "../../logger.ts";
import type { Store } from "../../store/database.ts";
import { workerHeartbeats } from "../../store/schema.ts";

/** How often a worker process writes its heartbeat. */
export const heartbeatIntervalSeconds = 5;

/** A heartbeat older than this is not fresh: three missed beats. */
export const heartbeatFreshSeconds = heartbeatIntervalSeconds * 3;

/** Rows older than this are dropped by the beating workers: a worker gone for an hour is not reported. */
const heartbeatRetentionSeconds = 60 * 60;

/** A worker process as its heartbeat row tells it. */
export interface WorkerHeartbeat {
  id: string;
  startedAt: Date;
  lastSeenAt: Date;
  /** Seen within `heartbeatFreshSeconds`. */
  fresh: boolean;
}

/** Every worker seen within the retention, the latest heartbeat first. */
export async function readWorkerHeartbeats(store: Store, now: Date): Promise<WorkerHeartbeat[]> {
  const rows = await store.db
    .select()
    .from(workerHeartbeats)
    .where(
      sql`${workerHeartbeats.lastSeenAt} > ${new Date(now.getTime() - heartbeatRetentionSeconds * 1000).toISOString()}::timestamptz`,
    )
    .orderBy(sql`${workerHeartbeats.lastSeenAt} desc`, workerHeartbeats.id);
  return rows.map((row) => ({
    ...row,
    fresh: now.getTime() - row.lastSeenAt.getTime() <= heartbeatFreshSeconds * 1000,
  }));
}

/** Writes this worker process's heartbeat row every few seconds, and removes it when the process stops. */
export class HeartbeatWriter {
  readonly id = newId("wrk");
  private readonly startedAt: Date;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: Store,
    private readonly options: { now: () => Date; logger: Logger; intervalMs?: number },
  ) {
    this.startedAt = options.now();
  }

  /** Writes the first heartbeat before answering, so the worker is reported as soon as it runs. */
  async start(): Promise<void> {
    await this.beat();
    this.timer = setInterval(
      () => {
        this.beat().catch((err: unknown) =>
          this.options.logger.warn({ err, worker: this.id }, "worker heartbeat failed"),
        );
      },
      this.options.intervalMs ?? heartbeatIntervalSeconds * 1000,
    );
    this.timer.unref();
  }

  async beat(): Promise<void> {
    const now = this.options.now();
    await this.store.db
      .insert(workerHeartbeats)
      .values({ id: this.id, startedAt: this.startedAt, lastSeenAt: now })
      .onConflictDoUpdate({ target: workerHeartbeats.id, set: { lastSeenAt: now } });
    await this.store.db
      .delete(workerHeartbeats)
      .where(lt(workerHeartbeats.lastSeenAt, new Date(now.getTime() - heartbeatRetentionSeconds * 1000)));
  }

  /** Stops beating and removes the row: a worker that stopped cleanly is not reported as a silent one. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.store.db.delete(workerHeartbeats).where(eq(workerHeartbeats.id, this.id));
  }
}
