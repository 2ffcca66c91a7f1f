import { and, asc, eq, gt } from "drizzle-orm";
import type { DatabaseOrTransaction } from "../../store/database.ts";
import { liveEvents, liveSessions } from "../../store/schema.ts";
import type { WebhookOutbox } from "../webhooks/index.ts";
import type { LiveSessionRow, RecordedLiveEvent } from "./live-store.ts";
import { segmentOfEvent } from "./live-views.ts";

/** How often at most a session's final segments are delivered, batched (docs/decisions.md, rule 16). */
export const defaultWebhookBatchMs = 3_000;

/**
 * A session's deliveries to its `webhook_url`, signed like job callbacks: its final segments
 * batched into one `live.segments` delivery at most every `batchMs`, and each lifecycle event as
 * it happens, after the segments before it. Written in the transaction of what they report.
 */
export class LiveWebhooks {
  constructor(
    private readonly outbox: WebhookOutbox | undefined,
    private readonly now: () => Date,
    private readonly batchMs: number = defaultWebhookBatchMs,
  ) {}

  /**
   * Hands the segments recorded since the last delivery to the webhook when a delivery is due
   * (or `force`); answers in how many milliseconds the next one is due, null when none waits.
   */
  async flushSegments(row: LiveSessionRow, tx: DatabaseOrTransaction, force = false): Promise<number | null> {
    if (!this.outbox || !row.webhookUrl) return null;
    const now = this.now();
    const sentAt = row.webhookSentAt?.getTime() ?? Number.NEGATIVE_INFINITY;
    const waitMs = sentAt + this.batchMs - now.getTime();
    const pending = await tx
      .select({ seq: liveEvents.seq, type: liveEvents.type, body: liveEvents.body })
      .from(liveEvents)
      .where(
        and(
          eq(liveEvents.sessionId, row.id),
          gt(liveEvents.seq, Number(row.webhookSentSeq)),
          eq(liveEvents.type, "live.segment"),
        ),
      )
      .orderBy(asc(liveEvents.seq));
    if (pending.length === 0) return null;
    if (!force && waitMs > 0) return waitMs;
    const segments = pending.map((event) =>
      segmentOfEvent({ seq: Number(event.seq), type: "live.segment", body: event.body }),
    );
    await this.outbox.enqueue(
      {
        accountId: row.accountId,
        url: row.webhookUrl,
        type: "live.segments",
        payload: { type: "live.segments", session_id: row.id, segments },
        at: now,
      },
      tx,
    );
    await tx
      .update(liveSessions)
      .set({ webhookSentSeq: segments.at(-1)?.seq ?? Number(row.webhookSentSeq), webhookSentAt: now })
      .where(eq(liveSessions.id, row.id));
    return null;
  }

  /** Delivers a lifecycle event (`live.started`, `live.gap`, `live.ended`, `live.failed`) after the segments before it. */
  async lifecycle(row: LiveSessionRow, event: RecordedLiveEvent, tx: DatabaseOrTransaction): Promise<void> {
    if (!this.outbox || !row.webhookUrl) return;
    await this.flushSegments(row, tx, true);
    await this.outbox.enqueue(
      { accountId: row.accountId, url: row.webhookUrl, type: event.type, payload: event.body },
      tx,
    );
  }
}
