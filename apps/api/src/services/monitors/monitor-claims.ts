import { and, eq, inArray, isNull, lte, or, sql } from "drizzle-orm";
import { newId } from "../../ids.ts";
import type { Logger } from "../../logger.ts";
import { runConcurrently } from "../../run-concurrently.ts";
import { isStoreError, type Store } from "../../store/database.ts";
import { retryUntilReachable } from "../../store/retry-until-reachable.ts";
import { monitors } from "../../store/schema.ts";
import type { MonitorChecks } from "./monitor-checks.ts";
import type { MonitorRow } from "./monitor-events.ts";
import { claimBatchSize } from "./monitor-schedule.ts";
import { transcriptConcurrency } from "./monitor-transcripts.ts";

/** The shortest wait before a scheduled check the store failed runs again; the wait grows with the check's lateness. */
const storeRetryMinMs = 5_000;

/** The longest such wait, so a check runs within a minute of the store answering again. */
const storeRetryMaxMs = 60_000;

export interface DueMonitorChecksOptions {
  store: Store;
  checks: MonitorChecks;
  now: () => Date;
  logger: Logger;
  /** The base of `error.docs` links in what scheduled checks record. */
  docsBaseUrl: string;
  /** How long a worker holds a due check it claimed: a worker that died frees it then. */
  claimMs: number;
}

/** Scheduled checks: each due monitor claimed by one worker of those sharing the database, then checked. */
export class DueMonitorChecks {
  constructor(private readonly options: DueMonitorChecksOptions) {}

  /**
   * Checks the monitors that are due, each exactly once across every worker sharing the
   * database: a due monitor is claimed (`FOR UPDATE SKIP LOCKED`) before its check, and its claim
   * lapses if the worker dies, so another checks it then. Answers how many were checked.
   */
  async run(limit = claimBatchSize): Promise<number> {
    const now = this.options.now();
    const due = this.options.store.db
      .select({ id: monitors.id })
      .from(monitors)
      .where(
        and(
          eq(monitors.status, "active"),
          lte(monitors.nextCheckAt, now),
          or(isNull(monitors.claimedUntil), lte(monitors.claimedUntil, now)),
        ),
      )
      .orderBy(monitors.nextCheckAt)
      .limit(limit)
      .for("update", { skipLocked: true });
    const claimed = await this.options.store.db
      .update(monitors)
      .set({ claimedUntil: new Date(now.getTime() + this.options.claimMs) })
      .where(inArray(monitors.id, due))
      .returning();
    await runConcurrently(claimed, transcriptConcurrency, async (monitor) => {
      try {
        await this.options.checks.check(monitor, {
          requestId: newId("req"),
          docsBaseUrl: this.options.docsBaseUrl,
          ...(monitor.claimedUntil ? { claim: monitor.claimedUntil } : {}),
        });
      } catch (err) {
        if (monitor.claimedUntil && isStoreError(err)) {
          this.options.logger.warn(
            { err, monitor_id: monitor.id },
            "scheduled monitor check met a store error; retried soon",
          );
          await this.retrySoon(monitor, monitor.claimedUntil);
          return;
        }
        this.options.logger.error({ err, monitor_id: monitor.id }, "scheduled monitor check failed; it is retried");
      }
    });
    return claimed.length;
  }

  /**
   * Hands a scheduled check that met a store error back to the scheduler, still due and with no
   * `last_error`: the store failing says nothing about the channel. It runs again after a wait
   * that grows with its lateness, from 5 s to a minute, not when its claim lapses. The store may
   * still be away, so the hand-back is tried until it answers; a claim another worker took since
   * is left alone.
   */
  private retrySoon(monitor: MonitorRow, claim: Date): Promise<boolean> {
    return retryUntilReachable(() => {
      const now = this.options.now();
      const lateMs = now.getTime() - (monitor.nextCheckAt ?? now).getTime();
      const retryAt = new Date(now.getTime() + Math.min(Math.max(lateMs, storeRetryMinMs), storeRetryMaxMs));
      return this.options.store.query(
        sql`update monitors set claimed_until = ${retryAt.toISOString()}::timestamptz
             where id = ${monitor.id} and claimed_until = ${claim.toISOString()}::timestamptz`,
      );
    }, this.options.claimMs);
  }
}
