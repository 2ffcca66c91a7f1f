import { randomBytes } from "node:crypto";
import type { RequestBody, Schema } from "@verbatim/contract";
import { and, desc, eq, inArray, isNull, lte, or, sql } from "drizzle-orm";
import type { ListTarget, VideoListSource } from "../adapters/youtube/video-lists.ts";
import { ApiError } from "../errors.ts";
import { newId } from "../ids.ts";
import type { Logger } from "../logger.ts";
import { type DatabaseOrTransaction, isStoreError, type Store } from "../store/database.ts";
import { retryUntilReachable } from "../store/retry-until-reachable.ts";
import { accounts, monitors, monitorTranscriptTasks, transcriptJobs } from "../store/schema.ts";
import type { Credits } from "./credits.ts";
import type { EventCursors } from "./event-cursors.ts";
import type {
  MonitorEvents,
  MonitorEventView,
  MonitorRow,
  MonitorVideosEventView,
  TranscriptOutcomeData,
} from "./monitor-events.ts";
import { isPlanName, type PlanName } from "./plans.ts";
import { runConcurrently } from "./run-concurrently.ts";
import { type FinishedJob, jobStatusBody } from "./transcript-jobs.ts";
import type { Transcripts } from "./transcripts.ts";
import { checkListReference } from "./video-lists.ts";
import { toApiError } from "./video-transcripts.ts";
import { type WebhookTargetRule, webhookTargetProblem } from "./webhook-targets.ts";

export type MonitorView = Schema<"Monitor">;
export type MonitorCreate = RequestBody<"createMonitor">;
export type MonitorUpdate = RequestBody<"updateMonitor">;
type VideoRow = Schema<"VideoRow">;
type ErrorBody = NonNullable<Schema<"MonitorCheck">["error"]>;

/** Limits on an account's monitors, as `GET /monitors` reports them. */
export const monitorLimits = { max_monitors: 100, min_interval_minutes: 15 } as const;

/** Videos a monitor remembers as seen: enough that deleted or re-ordered newest videos never make old ones look new. */
export const seenVideoLimit = 200;

/** Upstream pages one check reads looking for the newest video it has seen (about 90 videos). */
const maxCheckPages = 3;

/** How long a scheduled check or a transcript fetch holds its claim: a worker that died frees it then. */
const defaultClaimSeconds = 600;

/** The most a check's time moves for jitter, so monitors created together do not all check at once. */
const maxJitterMs = 5 * 60_000;

/** The operation a monitor's charges are recorded under, whether the check was scheduled or asked for. */
const checkOperation = "POST /monitors/{monitorId}/check";

/** The shortest wait before a scheduled check the store failed runs again; the wait grows with the check's lateness. */
const storeRetryMinMs = 5_000;

/** The longest such wait, so a check runs within a minute of the store answering again. */
const storeRetryMaxMs = 60_000;

/** Due monitors (or owed transcripts) one claim takes. */
export const claimBatchSize = 20;

/** Transcripts of one check fetched at once. */
const transcriptConcurrency = 2;

export interface MonitorsOptions {
  store: Store;
  credits: Credits;
  lists: VideoListSource;
  transcripts: Transcripts;
  events: MonitorEvents;
  cursors: EventCursors;
  /** The address rule a `webhook_url` must pass. */
  webhookTargets: WebhookTargetRule;
  now: () => Date;
  logger: Logger;
  /** The base of `error.docs` links in events and `last_error` of scheduled checks. */
  docsBaseUrl: string;
  /** 0 (inclusive) to 1: where in its jitter window a check lands. Default `Math.random`. */
  random?: () => number;
  claimSeconds?: number;
}

/** Who asked for a check: the request (on demand) or the scheduler. */
export interface CheckContext {
  requestId: string;
  docsBaseUrl: string;
  /**
   * The claim a scheduled check holds. A check that outlives it (a stalled worker) reports
   * nothing: another worker has taken the monitor up for the same due time.
   */
  claim?: Date;
}

/** What `report` answers when the check's claim was taken over by another worker. */
const claimLost = Symbol("claim lost");

/** What a check found and charged. */
export interface CheckResult {
  monitor: MonitorView;
  newVideos: number;
  event: MonitorVideosEventView | null;
  error: ErrorBody | null;
  creditsSpent: number;
  balance: number | null;
}

/** A page of a monitor's events for the API. */
export interface EventListPage {
  events: MonitorEventView[];
  nextCursor: string | null;
}

/**
 * Monitors (docs/decisions.md, rule 14): a YouTube channel tab checked on a schedule. Creation
 * takes a free baseline of the tab's newest videos; a check lists the tab down to the newest
 * video already seen (the `since_video_id` rule), and new videos make one `monitor.videos` event
 * (1 credit), then, with `transcripts`, one `monitor.transcript` event per video, each fetched
 * through the transcript service and charged like any transcript. A check that cannot pay
 * records `last_error` and changes nothing else, so its videos are still new next time.
 */
export class Monitors {
  private readonly random: () => number;
  private readonly claimMs: number;

  constructor(private readonly options: MonitorsOptions) {
    this.random = options.random ?? Math.random;
    this.claimMs = (options.claimSeconds ?? defaultClaimSeconds) * 1000;
  }

  async create(accountId: string, input: MonitorCreate): Promise<Schema<"CreatedMonitor">> {
    const target = channelTarget(input.target, input.tab ?? "videos");
    checkListReference(target);
    const webhookUrl = input.webhook_url ?? null;
    if (webhookUrl !== null) await this.requireDeliverable(webhookUrl);
    const [count] = await this.options.store.query<{ monitors: number }>(
      sql`select count(*)::int as monitors from monitors where account_id = ${accountId}`,
    );
    if ((count?.monitors ?? 0) >= monitorLimits.max_monitors) {
      throw new ApiError(
        "invalid_request",
        `The account has ${monitorLimits.max_monitors} monitors, the most it may have. Delete one first.`,
      );
    }
    const baseline = await this.newestVideoIds(target);
    const now = this.options.now();
    const interval = input.interval_minutes ?? 60;
    const secret = `whsec_${randomBytes(24).toString("base64")}`;
    const [row] = await this.options.store.db
      .insert(monitors)
      .values({
        id: newId("mon"),
        accountId,
        target: input.target,
        tab: target.tab,
        name: input.name ?? null,
        status: "active",
        intervalMinutes: interval,
        transcripts: input.transcripts ?? false,
        webhookUrl,
        webhookSecret: secret,
        seenVideoIds: baseline.slice(0, seenVideoLimit),
        nextCheckAt: this.nextCheckAfter(now, interval),
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    if (!row) throw new Error("inserting a monitor returned no row");
    return { ...monitorView(row, null, undefined), webhook_secret: secret, baseline_count: baseline.length };
  }

  async list(accountId: string, since: string | undefined): Promise<Schema<"MonitorList">> {
    const rows = await this.options.store.db
      .select()
      .from(monitors)
      .where(eq(monitors.accountId, accountId))
      .orderBy(desc(monitors.id));
    const newest = await this.options.events.newestOf(rows.map((row) => row.id));
    const views = rows.map((row) => monitorView(row, newest.get(row.id) ?? null, since));
    const lastEventId = [...newest.values()].sort().at(-1) ?? null;
    return {
      kind: "monitor_list",
      monitors: views,
      has_new: views.some((view) => view.has_new),
      last_event_id: lastEventId,
      limits: { ...monitorLimits },
    };
  }

  async get(accountId: string, monitorId: string, since: string | undefined): Promise<MonitorView> {
    return this.view(await this.owned(accountId, monitorId), since);
  }

  /** Applies a PATCH: a field sent as `null` is cleared, an omitted one kept. A new tab takes a new baseline. */
  async update(accountId: string, monitorId: string, patch: MonitorUpdate): Promise<MonitorView> {
    const monitor = await this.owned(accountId, monitorId);
    if (patch.webhook_url) await this.requireDeliverable(patch.webhook_url);
    const now = this.options.now();
    const changes: Partial<MonitorRow> = { updatedAt: now };
    if (patch.tab !== undefined && patch.tab !== monitor.tab) {
      const target = channelTarget(monitor.target, patch.tab);
      changes.tab = patch.tab;
      changes.seenVideoIds = (await this.newestVideoIds(target)).slice(0, seenVideoLimit);
    }
    if (patch.interval_minutes !== undefined) changes.intervalMinutes = patch.interval_minutes;
    if (patch.transcripts !== undefined) changes.transcripts = patch.transcripts;
    if (patch.webhook_url !== undefined) changes.webhookUrl = patch.webhook_url;
    if (patch.name !== undefined) changes.name = patch.name;
    const status = patch.status ?? monitor.status;
    changes.status = status;
    const interval = changes.intervalMinutes ?? monitor.intervalMinutes;
    if (status === "paused") changes.nextCheckAt = null;
    else if (monitor.status === "paused" || changes.intervalMinutes !== undefined) {
      changes.nextCheckAt = this.nextCheckAfter(now, interval);
    }
    const [row] = await this.options.store.db
      .update(monitors)
      .set(changes)
      .where(and(eq(monitors.id, monitor.id), eq(monitors.accountId, accountId)))
      .returning();
    if (!row) throw notFound(monitorId);
    return this.view(row, undefined);
  }

  /** Deletes the monitor with its events, its pending deliveries and its unfetched transcripts. */
  async delete(accountId: string, monitorId: string): Promise<void> {
    const deleted = await this.options.store.db
      .delete(monitors)
      .where(and(eq(monitors.id, monitorId), eq(monitors.accountId, accountId)))
      .returning({ id: monitors.id });
    if (deleted.length === 0) throw notFound(monitorId);
  }

  /** Checks now, paused or not, under the same rules as a scheduled check. */
  async checkNow(accountId: string, monitorId: string, context: CheckContext): Promise<CheckResult> {
    return this.check(await this.owned(accountId, monitorId), context);
  }

  async events(
    accountId: string,
    monitorId: string,
    query: { limit: number; cursor?: string; since?: string },
  ): Promise<EventListPage> {
    const monitor = await this.owned(accountId, monitorId);
    const before = query.cursor ? await this.options.cursors.read(monitor.id, query.cursor) : undefined;
    const page = await this.options.events.page(monitor.id, {
      limit: query.limit,
      ...(before === undefined ? {} : { before }),
      ...(query.since === undefined ? {} : { since: query.since }),
    });
    const last = page.events.at(-1);
    return {
      events: page.events,
      nextCursor: page.more && last ? await this.options.cursors.issue(monitor.id, last.id) : null,
    };
  }

  /**
   * Checks the monitors that are due, each exactly once across every worker sharing the
   * database: a due monitor is claimed (`FOR UPDATE SKIP LOCKED`) before its check, and its claim
   * lapses if the worker dies, so another checks it then. Answers how many were checked.
   */
  async runDueChecks(limit = claimBatchSize): Promise<number> {
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
      .set({ claimedUntil: new Date(now.getTime() + this.claimMs) })
      .where(inArray(monitors.id, due))
      .returning();
    await runConcurrently(claimed, transcriptConcurrency, async (monitor) => {
      try {
        await this.check(monitor, {
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
    }, this.claimMs);
  }

  /** Fetches transcripts a check left unfetched (its worker died): each claimed like a due monitor. */
  async runPendingTranscripts(limit = claimBatchSize): Promise<number> {
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
      .set({ claimedUntil: new Date(now.getTime() + this.claimMs) })
      .where(inArray(monitorTranscriptTasks.id, due))
      .returning();
    await runConcurrently(tasks, transcriptConcurrency, async (task) => {
      const [monitor] = await this.options.store.db.select().from(monitors).where(eq(monitors.id, task.monitorId));
      if (!monitor) return;
      await this.fetchTranscript(monitor, task, {
        requestId: newId("req"),
        docsBaseUrl: this.options.docsBaseUrl,
      }).catch((err: unknown) =>
        this.options.logger.error({ err, monitor_id: monitor.id }, "monitor transcript failed; it is retried"),
      );
    });
    return tasks.length;
  }

  private async check(monitor: MonitorRow, context: CheckContext): Promise<CheckResult> {
    let fresh: VideoRow[];
    try {
      fresh = await this.listNew(monitor);
      if (fresh.length > 0) {
        const balance = await this.options.credits.balance(monitor.accountId);
        this.options.credits.requireAtLeast(balance, 1 + (monitor.transcripts ? fresh.length : 0));
      }
    } catch (error) {
      return this.failedCheck(monitor, toApiError(error), context);
    }
    let reported: { event: MonitorVideosEventView; tasks: TaskRow[]; balance: number | null } | null | typeof claimLost;
    try {
      reported = await this.report(monitor, fresh, context);
    } catch (error) {
      if (error instanceof ApiError && error.code === "insufficient_credits") {
        return this.failedCheck(monitor, error, context);
      }
      throw error;
    }
    if (reported === claimLost) return this.quietCheck(monitor, { record: false });
    if (!reported) return this.quietCheck(monitor);
    let creditsSpent = 1;
    let balance = reported.balance;
    await runConcurrently(reported.tasks, transcriptConcurrency, async (task) => {
      const fetched = await this.fetchTranscript(monitor, task, context);
      creditsSpent += fetched.creditsSpent;
      if (fetched.balance !== undefined) balance = fetched.balance;
    });
    return {
      monitor: await this.view(await this.reload(monitor), undefined),
      newVideos: reported.event.data.videos.length,
      event: reported.event,
      error: null,
      creditsSpent,
      balance,
    };
  }

  /**
   * Records new videos in one transaction: the charge, the event and its delivery, the monitor's
   * seen videos, and the transcripts it owes. Videos a concurrent check reported meanwhile are
   * left out; `null` when none is left, `claimLost` when a scheduled check's claim lapsed and
   * another worker took the monitor up (it reports this due time, not both).
   */
  private report(
    monitor: MonitorRow,
    listed: VideoRow[],
    context: CheckContext,
  ): Promise<{ event: MonitorVideosEventView; tasks: TaskRow[]; balance: number | null } | null | typeof claimLost> {
    return this.options.store.db.transaction(async (tx) => {
      const [current] = await tx.select().from(monitors).where(eq(monitors.id, monitor.id)).for("update");
      if (!current) throw notFound(monitor.id);
      if (context.claim && current.claimedUntil?.getTime() !== context.claim.getTime()) return claimLost;
      const seen = new Set(current.seenVideoIds);
      const fresh = listed.filter((video) => !seen.has(video.videoId));
      if (fresh.length === 0) return null;
      const balance = await this.options.credits.charge(
        { accountId: current.accountId, credits: 1, operation: checkOperation, requestId: context.requestId },
        tx,
      );
      const event = (await this.options.events.record(
        current,
        { type: "monitor.videos", data: { videos: fresh } },
        1,
        tx,
      )) as MonitorVideosEventView;
      const now = this.options.now();
      await tx
        .update(monitors)
        .set({
          seenVideoIds: [...fresh.map((video) => video.videoId), ...current.seenVideoIds].slice(0, seenVideoLimit),
          ...this.afterCheck(current, now),
          lastError: null,
        })
        .where(eq(monitors.id, current.id));
      const tasks = current.transcripts
        ? await tx
            .insert(monitorTranscriptTasks)
            .values(
              fresh.map((video) => ({
                monitorId: current.id,
                videosEventId: event.id,
                videoId: video.videoId,
                status: "pending",
                claimedUntil: new Date(now.getTime() + this.claimMs),
                createdAt: now,
              })),
            )
            .returning()
        : [];
      return { event, tasks, balance };
    });
  }

  /**
   * Fetches one new video's transcript through the transcript service and records its
   * `monitor.transcript` event with the task's move: `ok` and `error` finish the task, a
   * speech job leaves it awaiting the job, whose outcome `MonitorEvents.jobFinished` records.
   */
  private async fetchTranscript(
    monitor: MonitorRow,
    task: TaskRow,
    context: CheckContext,
  ): Promise<{ creditsSpent: number; balance?: number | null }> {
    const [account] = await this.options.store.db
      .select({ plan: accounts.plan, credits: accounts.credits })
      .from(accounts)
      .where(eq(accounts.id, monitor.accountId));
    if (!account) throw new Error(`No account ${monitor.accountId} for monitor ${monitor.id}.`);
    let outcome: TranscriptOutcomeData;
    let creditsSpent = 0;
    let balance: number | null | undefined;
    let jobId: string | null = null;
    try {
      const fetched = await this.options.transcripts.fetch({
        video: task.videoId,
        mode: "auto",
        accountId: monitor.accountId,
        plan: planOf(account.plan),
        balance: account.credits,
        requestId: context.requestId,
        operation: checkOperation,
        callbackUrl: null,
        body: { video: task.videoId, mode: "auto" },
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
      outcome = { outcome: "error", transcript: null, job_id: null, error: errorBody(failure, context.docsBaseUrl) };
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
  private async followFinishedJob(jobId: string, context: CheckContext, tx: DatabaseOrTransaction): Promise<void> {
    const [job] = await tx.select().from(transcriptJobs).where(eq(transcriptJobs.id, jobId)).for("update");
    if (!job || job.status === "processing") return;
    const state = jobStatusBody(job, context.requestId, context.docsBaseUrl);
    if (state.status === "processing") return;
    const finished: FinishedJob =
      state.status === "completed"
        ? { status: "completed", transcript: state.data, usage: state.usage }
        : { status: "failed", error: state.error };
    await this.options.events.jobFinished(job, finished, tx);
  }

  private async failedCheck(monitor: MonitorRow, failure: ApiError, context: CheckContext): Promise<CheckResult> {
    const at = this.options.now();
    const error = errorBody(failure, context.docsBaseUrl);
    await this.options.store.db
      .update(monitors)
      .set({ ...this.afterCheck(monitor, at), lastError: { ...error, at: at.toISOString() } })
      .where(eq(monitors.id, monitor.id));
    return {
      monitor: await this.view(await this.reload(monitor), undefined),
      newVideos: 0,
      event: null,
      error,
      creditsSpent: 0,
      balance: await this.options.credits.balance(monitor.accountId),
    };
  }

  /** A check that found nothing new; `record: false` when another worker took the check over and records it. */
  private async quietCheck(monitor: MonitorRow, options: { record: boolean } = { record: true }): Promise<CheckResult> {
    if (options.record) {
      await this.options.store.db
        .update(monitors)
        .set({ ...this.afterCheck(monitor, this.options.now()), lastError: null })
        .where(eq(monitors.id, monitor.id));
    }
    return {
      monitor: await this.view(await this.reload(monitor), undefined),
      newVideos: 0,
      event: null,
      error: null,
      creditsSpent: 0,
      balance: await this.options.credits.balance(monitor.accountId),
    };
  }

  /** What every finished check sets: when it ran, the next scheduled check (none while paused), no claim. */
  private afterCheck(monitor: MonitorRow, now: Date): Partial<MonitorRow> {
    return {
      lastCheckedAt: now,
      nextCheckAt: monitor.status === "active" ? this.nextCheckAfter(now, monitor.intervalMinutes) : null,
      claimedUntil: null,
    };
  }

  /** The tab's videos newer than the newest one the monitor has seen, newest first. */
  private async listNew(monitor: MonitorRow): Promise<VideoRow[]> {
    const target = channelTarget(monitor.target, monitor.tab);
    const seen = new Set(monitor.seenVideoIds);
    const fresh: VideoRow[] = [];
    let page = await this.options.lists.firstPage(target);
    for (let read = 1; ; read++) {
      for (const row of page.rows) {
        if (!("videoId" in row)) continue;
        if (seen.has(row.videoId)) return fresh;
        fresh.push(row);
      }
      // With nothing seen (the tab was empty at the baseline), the newest page is what is new.
      if (page.continuation === null || seen.size === 0 || read === maxCheckPages) return fresh;
      page = await this.options.lists.nextPage(target, page.continuation);
    }
  }

  private async newestVideoIds(target: ListTarget): Promise<string[]> {
    try {
      const page = await this.options.lists.firstPage(target);
      return page.rows.flatMap((row) => ("videoId" in row ? [row.videoId] : []));
    } catch (error) {
      throw toApiError(error);
    }
  }

  private async requireDeliverable(webhookUrl: string): Promise<void> {
    const problem = await webhookTargetProblem(webhookUrl, this.options.webhookTargets);
    if (problem) throw new ApiError("invalid_input", `webhook_url ${problem}.`);
  }

  private nextCheckAfter(now: Date, intervalMinutes: number): Date {
    const intervalMs = intervalMinutes * 60_000;
    const jitterMs = Math.floor(this.random() * Math.min(intervalMs / 10, maxJitterMs));
    return new Date(now.getTime() + intervalMs + jitterMs);
  }

  private async owned(accountId: string, monitorId: string): Promise<MonitorRow> {
    const [row] = await this.options.store.db
      .select()
      .from(monitors)
      .where(and(eq(monitors.id, monitorId), eq(monitors.accountId, accountId)));
    if (!row) throw notFound(monitorId);
    return row;
  }

  private async reload(monitor: MonitorRow): Promise<MonitorRow> {
    const [row] = await this.options.store.db.select().from(monitors).where(eq(monitors.id, monitor.id));
    if (!row) throw notFound(monitor.id);
    return row;
  }

  private async view(row: MonitorRow, since: string | undefined): Promise<MonitorView> {
    const newest = await this.options.events.newestOf([row.id]);
    return monitorView(row, newest.get(row.id) ?? null, since);
  }
}

type TaskRow = typeof monitorTranscriptTasks.$inferSelect;
type ChannelTab = "videos" | "shorts" | "live";

function channelTarget(channel: string, tab: string): ListTarget & { kind: "channel" } {
  return { kind: "channel", channel, tab: tab as ChannelTab, sort: "newest" };
}

function monitorView(row: MonitorRow, lastEventId: string | null, since: string | undefined): MonitorView {
  return {
    kind: "monitor",
    id: row.id,
    type: "channel",
    platform: "youtube",
    target: row.target,
    options: { tab: row.tab as ChannelTab },
    name: row.name,
    status: row.status as MonitorView["status"],
    has_new: lastEventId !== null && (since === undefined || lastEventId > since),
    interval_minutes: row.intervalMinutes as MonitorView["interval_minutes"],
    transcripts: row.transcripts,
    webhook_url: row.webhookUrl,
    last_event_id: lastEventId,
    next_check_at: row.nextCheckAt?.toISOString() ?? null,
    last_checked_at: row.lastCheckedAt?.toISOString() ?? null,
    last_error: row.lastError as MonitorView["last_error"],
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

function errorBody(failure: ApiError, docsBaseUrl: string): ErrorBody {
  return failure.toBody(docsBaseUrl) as ErrorBody;
}

function notFound(monitorId: string): ApiError {
  return new ApiError("not_found", `No monitor ${monitorId} on this account.`);
}

function planOf(plan: string): PlanName {
  if (!isPlanName(plan)) throw new Error(`unknown plan ${plan}`);
  return plan;
}
