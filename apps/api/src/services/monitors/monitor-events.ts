import type { Schema } from "@verbatim/contract";
import { and, eq, sql } from "drizzle-orm";
import { newId } from "../../ids.ts";
import type { DatabaseOrTransaction, Store } from "../../store/database.ts";
import { monitorEvents, monitors, monitorTranscriptTasks } from "../../store/schema.ts";
import type { FinishedJob, JobFollower, TranscriptJobRow } from "../speech/index.ts";
import type { WebhookOutbox } from "../webhooks/index.ts";
import { presentedTranscript } from "../words/index.ts";

export type MonitorRow = typeof monitors.$inferSelect;
export type MonitorEventView = Schema<"MonitorEvent">;
export type MonitorVideosEventView = Schema<"MonitorVideosEvent">;
type TranscriptData = Schema<"MonitorTranscriptData">;
type Delivery = Schema<"Delivery">;
type MonitorPlatform = Schema<"Monitor">["platform"];

/** A new item a `monitor.videos` event reported: where to fetch it, and the monitor's platform then. */
export interface ReportedItem {
  url: string;
  platform: MonitorPlatform;
}

/** A page of events, newest first. */
export interface EventPage {
  events: MonitorEventView[];
  /** Whether older events follow the page. */
  more: boolean;
}

/** Which events a page holds: older than `before`, newer than `since` (event ids, which sort by time). */
export interface EventRange {
  limit: number;
  before?: string;
  since?: string;
}

/** The outcome of one video's transcript, before it becomes a `monitor.transcript` event. */
export type TranscriptOutcomeData = Omit<TranscriptData, "video_id" | "url" | "videos_event_id">;

interface EventRowWithDelivery {
  id: string;
  body: Record<string, unknown>;
  delivered: boolean;
  status: Delivery["status"] | null;
  attempts: number | null;
  next_attempt_at: Date | string | null;
  delivered_at: Date | string | null;
  last_attempt_at: Date | string | null;
  last_error: string | null;
}

/**
 * A monitor's events: written in the caller's transaction with the change they report, handed to
 * the webhook deliverer under their own id (the `webhook-id`) when the monitor has a webhook, and
 * read back with their delivery state. As a `JobFollower` it turns the outcome of a speech job
 * started for a new video into that video's `monitor.transcript` event.
 */
export class MonitorEvents implements JobFollower {
  constructor(
    private readonly store: Store,
    private readonly webhooks: WebhookOutbox | undefined,
    private readonly now: () => Date,
  ) {}

  /** Records an event of `monitor`, which watches a list on `platform`, and queues its delivery; answers the event as the API shows it. */
  async record(
    monitor: MonitorRow,
    platform: MonitorPlatform,
    event: Pick<MonitorEventView, "type" | "data">,
    creditsSpent: number,
    db: DatabaseOrTransaction,
  ): Promise<MonitorEventView> {
    const id = newId("evt");
    const body = {
      id,
      type: event.type,
      created_at: this.now().toISOString(),
      monitor: { id: monitor.id, name: monitor.name, type: "channel", platform, target: monitor.target },
      credits_spent: creditsSpent,
      data: event.data,
    };
    const delivered = monitor.webhookUrl !== null && this.webhooks !== undefined;
    await db.insert(monitorEvents).values({
      id,
      monitorId: monitor.id,
      accountId: monitor.accountId,
      type: event.type,
      body,
      delivered,
      createdAt: this.now(),
    });
    if (delivered && monitor.webhookUrl) {
      await this.webhooks?.enqueue(
        {
          id,
          monitorId: monitor.id,
          accountId: monitor.accountId,
          url: monitor.webhookUrl,
          type: event.type,
          payload: body,
        },
        db,
      );
    }
    const delivery: Delivery = delivered ? pendingDelivery(this.now()) : noDelivery;
    return { ...body, delivery } as MonitorEventView;
  }

  /** Records the `monitor.transcript` event of one new item. */
  async recordTranscript(
    monitor: MonitorRow,
    task: { videoId: string; videosEventId: string },
    outcome: TranscriptOutcomeData,
    creditsSpent: number,
    db: DatabaseOrTransaction,
  ): Promise<MonitorEventView> {
    const item = await this.reportedItem(task, db);
    const data: TranscriptData = {
      video_id: task.videoId,
      url: item.url,
      ...outcome,
      // A monitor asks for no word times, whatever its transcripts keep.
      transcript: outcome.transcript === null ? null : presentedTranscript(outcome.transcript, false),
      videos_event_id: task.videosEventId,
    };
    return this.record(monitor, item.platform, { type: "monitor.transcript", data }, creditsSpent, db);
  }

  /**
   * The item a task owes a transcript for, as the `monitor.videos` event that reported it has it:
   * its row's `url` (which the transcript endpoint reads as that item, whatever the platform)
   * and the monitor's platform.
   */
  async reportedItem(
    task: { videoId: string; videosEventId: string },
    db: DatabaseOrTransaction = this.store.db,
  ): Promise<ReportedItem> {
    const [event] = await db
      .select({ body: monitorEvents.body })
      .from(monitorEvents)
      .where(eq(monitorEvents.id, task.videosEventId));
    const body = event?.body as Partial<Schema<"MonitorVideosEvent">> | undefined;
    const row = body?.data?.videos.find((video) => video.videoId === task.videoId);
    if (!body?.monitor || !row) {
      throw new Error(`event ${task.videosEventId} reports no item ${task.videoId}`);
    }
    return { url: row.url, platform: body.monitor.platform };
  }

  /** A job started for a monitor's new video finished: its outcome becomes the video's transcript event. */
  async jobFinished(job: TranscriptJobRow, outcome: FinishedJob, db: DatabaseOrTransaction): Promise<void> {
    const awaiting = await db
      .update(monitorTranscriptTasks)
      .set({ status: "done", claimedUntil: null })
      .where(and(eq(monitorTranscriptTasks.jobId, job.id), eq(monitorTranscriptTasks.status, "awaiting_job")))
      .returning();
    for (const task of awaiting) {
      const [monitor] = await db.select().from(monitors).where(eq(monitors.id, task.monitorId));
      if (!monitor) continue;
      await this.recordTranscript(monitor, task, finishedOutcome(job.id, outcome), creditsOf(outcome), db);
    }
  }

  /** A page of the monitor's events, newest first, each with its delivery state. */
  async page(monitorId: string, range: EventRange): Promise<EventPage> {
    const rows = await this.store.query<EventRowWithDelivery>(sql`
      select e.id, e.body, e.delivered, d.status, d.attempts, d.next_attempt_at, d.delivered_at,
             a.attempted_at as last_attempt_at, a.error as last_error
        from monitor_events e
        left join webhook_deliveries d on d.id = e.id
        left join lateral (
          select attempted_at, error from webhook_attempts
           where delivery_id = e.id order by attempt desc, id desc limit 1
        ) a on true
       where e.monitor_id = ${monitorId}
         ${range.before === undefined ? sql`` : sql`and e.id < ${range.before}`}
         ${range.since === undefined ? sql`` : sql`and e.id > ${range.since}`}
       order by e.id desc
       limit ${range.limit + 1}`);
    return { events: rows.slice(0, range.limit).map(eventView), more: rows.length > range.limit };
  }

  /** The newest event of each of these monitors. */
  async newestOf(monitorIds: readonly string[]): Promise<Map<string, string>> {
    if (monitorIds.length === 0) return new Map();
    const rows = await this.store.query<{ monitor_id: string; newest: string }>(sql`
      select monitor_id, max(id) as newest from monitor_events
       where monitor_id in (${sql.join(
         monitorIds.map((id) => sql`${id}`),
         sql`, `,
       )})
       group by monitor_id`);
    return new Map(rows.map((row) => [row.monitor_id, row.newest]));
  }
}

const noDelivery: Delivery = {
  status: "none",
  attempts: 0,
  last_attempt_at: null,
  next_attempt_at: null,
  last_error: null,
  delivered_at: null,
};

function pendingDelivery(now: Date): Delivery {
  return { ...noDelivery, status: "pending", next_attempt_at: now.toISOString() };
}

function eventView(row: EventRowWithDelivery): MonitorEventView {
  const delivery: Delivery =
    !row.delivered || row.status === null
      ? noDelivery
      : {
          status: row.status,
          attempts: row.attempts ?? 0,
          last_attempt_at: isoOrNull(row.last_attempt_at),
          next_attempt_at: row.status === "pending" ? isoOrNull(row.next_attempt_at) : null,
          last_error: row.status === "delivered" ? null : row.last_error,
          delivered_at: isoOrNull(row.delivered_at),
        };
  return { ...row.body, delivery } as MonitorEventView;
}

function isoOrNull(value: Date | string | null): string | null {
  if (value === null) return null;
  return new Date(value).toISOString();
}

function finishedOutcome(jobId: string, outcome: FinishedJob): TranscriptOutcomeData {
  return outcome.status === "completed"
    ? { outcome: "ok", transcript: outcome.transcript, job_id: jobId, error: null }
    : { outcome: "error", transcript: null, job_id: jobId, error: outcome.error as TranscriptData["error"] };
}

function creditsOf(outcome: FinishedJob): number {
  return outcome.status === "completed" ? outcome.usage.credits_spent : 0;
}
