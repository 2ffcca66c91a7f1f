import { and, eq, inArray, isNull, lte, or } from "drizzle-orm";
import { newId } from "../../ids.ts";
import type { Logger } from "../../logger.ts";
import { runConcurrently } from "../../run-concurrently.ts";
import type { DatabaseOrTransaction, Store } from "../../store/database.ts";
import { monitors, monitorTranscriptTasks, transcriptJobs } from "../../store/schema.ts";
import type { PlanName } from "../accounts/index.ts";
import { toApiError } from "../failures/index.ts";
import { jobOutcomeOf } from "../speech/index.ts";
import type { Transcripts } from "../transcripts/index.ts";
import type { MonitorEvents, MonitorRow, TranscriptOutcomeData } from "./monitor-events.ts";
import { claimBatchSize } from "./monitor-schedule.ts";
import { checkErrorBody } from "./monitor-views.ts";

export type TaskRow = typeof monitorTranscriptTasks.$inferSelect;

/** The operation a monitor's charges are recorded under, whether the check was scheduled or asked for. */
export const checkOperation = "POST /monitors/{monitorId}/check";

/** Transcripts of one check fetched at once. */
export const transcriptConcurrency = 2;

/** What a monitor's transcript needs of its account: the plan and balance the transcript service admits it under. */
export interface MonitorAccounts {
  planAndBalance(accountId: string): Promise<{ plan: PlanName; credits: number | null }>;
}

/** The request a transcript is fetched for: its id, and the base of `error.docs` links. */
export interface FetchContext {
  requestId: string;
  docsBaseUrl: string;
}

export interface MonitorTranscriptsOptions {
  store: Store;
  accounts: MonitorAccounts;
  transcripts: Transcripts;
  events: MonitorEvents;
  now: () => Date;
  logger: Logger;
  /** The base of `error.docs` links in the events of transcripts a dead worker left unfetched. */
  docsBaseUrl: string;
  /** How long a worker holds a pending transcript it claimed. */
  claimMs: number;
}

/** The transcripts monitors owe for new videos: each a task fetched once, its outcome a `monitor.transcript` event. */
export class MonitorTranscripts {
  constructor(private readonly options: MonitorTranscriptsOptions) {}

  /** Fetches transcripts a check left unfetched (its worker died): each claimed like a due monitor. */
  async runPending(limit = claimBatchSize): Promise<number> {
    const now = this.options.now();
    const due = this.options.store.db
      .select({ id: monitorTranscriptTasks.id })
      .from(monitorTranscriptTasks)
      .where(
        and(
          eq(monitorTranscriptTasks.status, "pending"),
          or(isNull(monitorTranscriptTasks.claimedUntil), lte(monitorTranscriptTasks.claimedUntil, now)),
        ),
      )
      .orderBy(monitorTranscriptTasks.id)
      .limit(limit)
      .for("update", { skipLocked: true });
    const tasks = await this.options.store.db
      .update(monitorTranscriptTasks)
      .set({ claimedUntil: new Date(now.getTime() + this.options.claimMs) })
      .where(inArray(monitorTranscriptTasks.id, due))
      .returning();
    await runConcurrently(tasks, transcriptConcurrency, async (task) => {
      const [monitor] = await this.options.store.db.select().from(monitors).where(eq(monitors.id, task.monitorId));
      if (!monitor) return;
      await this.fetch(monitor, task, {
        requestId: newId("req"),
        docsBaseUrl: this.options.docsBaseUrl,
      }).catch((err: unknown) =>
        this.options.logger.error({ err, monitor_id: monitor.id }, "monitor transcript failed; it is retried"),
      );
    });
    return tasks.length;
  }

  /**
   * Fetches one new item's transcript through the transcript service and records its
   * `monitor.transcript` event with the task's move: `ok` and `error` finish the task, a
   * speech job leaves it awaiting the job, whose outcome `MonitorEvents.jobFinished` records.
   */
  async fetch(
    monitor: MonitorRow,
    task: TaskRow,
    context: FetchContext,
  ): Promise<{ creditsSpent: number; balance?: number | null }> {
    const account = await this.options.accounts.planAndBalance(monitor.accountId);
    let outcome: TranscriptOutcomeData;
    let creditsSpent = 0;
    let balance: number | null | undefined;
    let jobId: string | null = null;
    try {
      // The row's url, which names the item on any platform; its id alone names a YouTube video only.
      const { url } = await this.options.events.reportedItem(task);
      const fetched = await this.options.transcripts.fetch({
        video: url,
        mode: "auto",
        accountId: monitor.accountId,
        plan: account.plan,
        balance: account.credits,
        requestId: context.requestId,
        operation: checkOperation,
        callbackUrl: null,
        body: { video: url, mode: "auto" },
        docsBaseUrl: context.docsBaseUrl,
      });
      if (fetched.kind === "transcript") {
        outcome = { outcome: "ok", transcript: fetched.transcript, job_id: null, error: null };
        creditsSpent = fetched.creditsSpent;
        balance = fetched.balance;
      } else {
        jobId = fetched.jobId;
        outcome = { outcome: "processing", transcript: null, job_id: jobId, error: null };
      }
    } catch (error) {
      const failure = toApiError(error);
      outcome = {
        outcome: "error",
        transcript: null,
        job_id: null,
        error: checkErrorBody(failure, context.docsBaseUrl),
      };
    }
    await this.options.store.db.transaction(async (tx) => {
      const [moved] = await tx
        .update(monitorTranscriptTasks)
        .set({ status: jobId === null ? "done" : "awaiting_job", jobId, claimedUntil: null })
        .where(and(eq(monitorTranscriptTasks.id, task.id), eq(monitorTranscriptTasks.status, "pending")))
        .returning({ id: monitorTranscriptTasks.id });
      if (!moved) return;
      await this.options.events.recordTranscript(monitor, task, outcome, creditsSpent, tx);
      if (jobId !== null) await this.followFinishedJob(jobId, context, tx);
    });
    return { creditsSpent, ...(balance === undefined ? {} : { balance }) };
  }

  /**
   * A job can finish before its task says it awaits the job: locking the job's row here, then
   * reading its state, means either the job's move waits and then finds the task awaiting it, or
   * the move came first and its outcome is recorded now, the way the move would have. Exactly one
   * of them records it.
   */
  private async followFinishedJob(jobId: string, context: FetchContext, tx: DatabaseOrTransaction): Promise<void> {
    const [job] = await tx.select().from(transcriptJobs).where(eq(transcriptJobs.id, jobId)).for("update");
    if (!job) return;
    const finished = jobOutcomeOf(job, context.docsBaseUrl);
    if (finished === null) return;
    await this.options.events.jobFinished(job, finished, tx);
  }
}
