import type { Dashboard } from "@verbatim/contract";
import { and, asc, desc, eq, inArray, lt, ne } from "drizzle-orm";
import type { Store } from "../../store/database.ts";
import { webhookAttempts, webhookDeliveries } from "../../store/schema.ts";

/** A delivery with its attempts, as the dashboard's contract shows it. */
export type WebhookDelivery = Dashboard.components["schemas"]["WebhookDelivery"];

/** A page of an account's deliveries, newest first. */
export interface DeliveryPage {
  deliveries: WebhookDelivery[];
  /** The id to page on from; `null` at the end. */
  nextBefore: string | null;
}

/**
 * An account's webhook deliveries (job callbacks and monitor events) with each attempt, as the
 * dashboard shows them, and redelivery. Sending is the outbox's (`webhook-deliverer.ts`): a redelivered
 * delivery is put back in its queue, due now.
 */
export class WebhookLog {
  constructor(
    private readonly store: Store,
    private readonly now: () => Date,
  ) {}

  /** Up to `limit` deliveries older than `before` (ids are ULIDs, so they sort by time). */
  async list(accountId: string, options: { limit: number; before?: string }): Promise<DeliveryPage> {
    const rows = await this.store.db
      .select()
      .from(webhookDeliveries)
      .where(
        and(
          eq(webhookDeliveries.accountId, accountId),
          options.before === undefined ? undefined : lt(webhookDeliveries.id, options.before),
        ),
      )
      .orderBy(desc(webhookDeliveries.id))
      .limit(options.limit + 1);
    const page = rows.slice(0, options.limit);
    const deliveries = await this.withAttempts(page);
    return { deliveries, nextBefore: rows.length > options.limit ? (page.at(-1)?.id ?? null) : null };
  }

  /**
   * Puts a delivered or failed delivery back in the queue, due now, under the same `webhook-id`;
   * a pending one is already on its way and is left as it is. `null` when the account has no such delivery.
   */
  async redeliver(accountId: string, deliveryId: string): Promise<WebhookDelivery | null> {
    const mine = and(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.accountId, accountId));
    await this.store.db
      .update(webhookDeliveries)
      .set({ status: "pending", nextAttemptAt: this.now(), deliveredAt: null })
      .where(and(mine, ne(webhookDeliveries.status, "pending")));
    const [row] = await this.store.db.select().from(webhookDeliveries).where(mine);
    if (!row) return null;
    const [delivery] = await this.withAttempts([row]);
    return delivery ?? null;
  }

  private async withAttempts(rows: Array<typeof webhookDeliveries.$inferSelect>): Promise<WebhookDelivery[]> {
    const attempts =
      rows.length === 0
        ? []
        : await this.store.db
            .select()
            .from(webhookAttempts)
            .where(
              inArray(
                webhookAttempts.deliveryId,
                rows.map((row) => row.id),
              ),
            )
            .orderBy(asc(webhookAttempts.attempt), asc(webhookAttempts.id));
    return rows.map((row) => ({
      id: row.id,
      event_type: row.eventType,
      url: row.url,
      status: row.status as WebhookDelivery["status"],
      created_at: row.createdAt.toISOString(),
      delivered_at: row.deliveredAt?.toISOString() ?? null,
      next_attempt_at: row.nextAttemptAt?.toISOString() ?? null,
      // The contract lists at most the last 100; the retry schedule makes about ten.
      attempts: attempts
        .filter((attempt) => attempt.deliveryId === row.id)
        .slice(-100)
        .map((attempt) => ({
          attempt: attempt.attempt,
          attempted_at: attempt.attemptedAt.toISOString(),
          response_status: attempt.responseStatus,
          error: attempt.error,
          duration_ms: attempt.durationMs,
        })),
    }));
  }
}
