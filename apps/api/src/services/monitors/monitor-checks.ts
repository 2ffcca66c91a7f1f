import { eq } from "drizzle-orm";
import { ApiError } from "../../errors.ts";
import { runConcurrently } from "../../run-concurrently.ts";
import type { Store } from "../../store/database.ts";
import { monitors, monitorTranscriptTasks } from "../../store/schema.ts";
import type { Credits } from "../accounts/index.ts";
import { toApiError } from "../failures/index.ts";
import type { MonitorEvents, MonitorRow, MonitorVideosEventView } from "./monitor-events.ts";
import { type MonitorLists, seenVideoLimit, type VideoRow } from "./monitor-lists.ts";
import type { CheckSchedule } from "./monitor-schedule.ts";
import {
  checkOperation,
  type FetchContext,
  type MonitorTranscripts,
  type TaskRow,
  transcriptConcurrency,
} from "./monitor-transcripts.ts";
import {
  type CheckErrorBody,
  checkErrorBody,
  type MonitorView,
  type MonitorViews,
  monitorNotFound,
} from "./monitor-views.ts";

/** Who asked for a check: the request (on demand) or the scheduler. */
export interface CheckContext extends FetchContext {
  /**
   * The claim a scheduled check holds. A check that outlives it (a stalled worker) reports
   * nothing: another worker has taken the monitor up for the same due time.
   */
  claim?: Date;
}

/** What a check found and charged. */
export interface CheckResult {
  monitor: MonitorView;
  newVideos: number;
  event: MonitorVideosEventView | null;
  error: CheckErrorBody | null;
  creditsSpent: number;
  balance: number | null;
}

export interface MonitorChecksOptions {
  store: Store;
  credits: Credits;
  events: MonitorEvents;
  now: () => Date;
  /** How long a new video's transcript task is held by the check that owes it. */
  claimMs: number;
  schedule: CheckSchedule;
  lists: MonitorLists;
  transcripts: MonitorTranscripts;
  views: MonitorViews;
}

/** What `report` answers when the check's claim was taken over by another worker. */
const claimLost = Symbol("claim lost");

/** What `report` recorded: the `monitor.videos` event, the transcripts it owes, and the balance after its charge. */
interface Reported {
  event: MonitorVideosEventView;
  tasks: TaskRow[];
  balance: number | null;
}

/**
 * One check of a monitor, scheduled or asked for: new videos make one `monitor.videos` event
 * (1 credit), then, with `transcripts`, one transcript each. A check that cannot pay records
 * `last_error` and changes nothing else, so its videos are still new next time.
 */
export class MonitorChecks {
  constructor(private readonly options: MonitorChecksOptions) {}

  async check(monitor: MonitorRow, context: CheckContext): Promise<CheckResult> {
    let fresh: VideoRow[];
    try {
      fresh = await this.options.lists.listNew(monitor);
      if (fresh.length > 0) {
        const balance = await this.options.credits.balance(monitor.accountId);
        this.options.credits.requireAtLeast(balance, 1 + (monitor.transcripts ? fresh.length : 0));
      }
    } catch (error) {
      return this.failedCheck(monitor, toApiError(error), context);
    }
    let reported: Reported | null | typeof claimLost;
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
      const fetched = await this.options.transcripts.fetch(monitor, task, context);
      creditsSpent += fetched.creditsSpent;
      if (fetched.balance !== undefined) balance = fetched.balance;
    });
    return {
      monitor: await this.currentView(monitor),
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
  ): Promise<Reported | null | typeof claimLost> {
    return this.options.store.db.transaction(async (tx) => {
      const [current] = await tx.select().from(monitors).where(eq(monitors.id, monitor.id)).for("update");
      if (!current) throw monitorNotFound(monitor.id);
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
        this.options.lists.describe(current).platform,
        { type: "monitor.videos", data: { videos: fresh } },
        1,
        tx,
      )) as MonitorVideosEventView;
      const now = this.options.now();
      await tx
        .update(monitors)
        .set({
          seenVideoIds: [...fresh.map((video) => video.videoId), ...current.seenVideoIds].slice(0, seenVideoLimit),
          ...this.options.schedule.afterCheck(current, now),
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
                claimedUntil: new Date(now.getTime() + this.options.claimMs),
                createdAt: now,
              })),
            )
            .returning()
        : [];
      return { event, tasks, balance };
    });
  }

  private async failedCheck(monitor: MonitorRow, failure: ApiError, context: CheckContext): Promise<CheckResult> {
    const at = this.options.now();
    const error = checkErrorBody(failure, context.docsBaseUrl);
    await this.options.store.db
      .update(monitors)
      .set({ ...this.options.schedule.afterCheck(monitor, at), lastError: { ...error, at: at.toISOString() } })
      .where(eq(monitors.id, monitor.id));
    return {
      monitor: await this.currentView(monitor),
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
        .set({ ...this.options.schedule.afterCheck(monitor, this.options.now()), lastError: null })
        .where(eq(monitors.id, monitor.id));
    }
    return {
      monitor: await this.currentView(monitor),
      newVideos: 0,
      event: null,
      error: null,
      creditsSpent: 0,
      balance: await this.options.credits.balance(monitor.accountId),
    };
  }

  private async currentView(monitor: MonitorRow): Promise<MonitorView> {
    const { views } = this.options;
    return views.view(await views.reload(monitor), undefined);
  }
}
