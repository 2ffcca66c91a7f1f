import { and, eq } from "drizzle-orm";
import type { Logger } from "../../logger.ts";
import type { Store } from "../../store/database.ts";
import { webhookAttempts, webhookDeliveries } from "../../store/schema.ts";
import type { ClaimedDelivery } from "./webhook-claims.ts";
import type { AttemptOutcome } from "./webhook-send.ts";

/** Where a delivery stands after an attempt. */
export type DeliveryState =
  | { status: "delivered"; deliveredAt: Date; nextAttemptAt: null }
  | { status: "pending"; nextAttemptAt: Date }
  | { status: "failed"; nextAttemptAt: null };

/**
 * Delivered on a 2xx; otherwise due again after the retry delay of this attempt, or `failed` once
 * the schedule is spent or no later attempt can succeed.
 */
export function stateAfter(
  outcome: AttemptOutcome,
  attempt: number,
  retryDelaysMs: readonly number[],
  finishedAt: Date,
): DeliveryState {
  const retryDelayMs = retryDelaysMs[attempt - 1];
  if (outcome.delivered) return { status: "delivered", deliveredAt: finishedAt, nextAttemptAt: null };
  if (outcome.retryable && retryDelayMs !== undefined) {
    return { status: "pending", nextAttemptAt: new Date(finishedAt.getTime() + retryDelayMs) };
  }
  return { status: "failed", nextAttemptAt: null };
}

/** Logs the attempt in `webhook_attempts` and moves its delivery to `next`, in one transaction. */
export async function recordAttempt(
  store: Store,
  delivery: ClaimedDelivery,
  attemptedAt: Date,
  outcome: AttemptOutcome,
  next: DeliveryState,
): Promise<void> {
  await store.db.transaction(async (tx) => {
    // A monitor deleted during the attempt took its deliveries with it: nothing is left to log.
    const [present] = await tx
      .select({ id: webhookDeliveries.id })
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.id, delivery.id))
      .for("update");
    if (!present) return;
    await tx.insert(webhookAttempts).values({
      deliveryId: delivery.id,
      attempt: delivery.attempts,
      attemptedAt,
      responseStatus: outcome.responseStatus,
      error: outcome.error,
      durationMs: outcome.durationMs,
    });
    // Only while this attempt's claim holds: a later claim of the delivery owns its state.
    await tx
      .update(webhookDeliveries)
      .set(next)
      .where(
        and(
          eq(webhookDeliveries.id, delivery.id),
          eq(webhookDeliveries.attempts, delivery.attempts),
          eq(webhookDeliveries.status, "pending"),
        ),
      );
  });
}

/** Tells the operator what came of an attempt, louder the worse it went. */
export function logAttempt(
  logger: Logger,
  delivery: ClaimedDelivery,
  outcome: AttemptOutcome,
  next: DeliveryState,
): void {
  const fields = {
    webhook_id: delivery.id,
    account_id: delivery.accountId,
    attempt: delivery.attempts,
    response_status: outcome.responseStatus,
    error: outcome.error,
    duration_ms: outcome.durationMs,
    status: next.status,
  };
  if (next.status === "delivered") logger.info(fields, "webhook delivered");
  else if (next.status === "pending") logger.warn(fields, "webhook attempt failed; will retry");
  else logger.error(fields, "webhook delivery failed for good");
}
