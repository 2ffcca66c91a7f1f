import { newId } from "../../ids.ts";
import type { DatabaseOrTransaction } from "../../store/database.ts";
import { webhookDeliveries } from "../../store/schema.ts";

/** One event for an account's webhook endpoint. */
export interface WebhookEvent {
  accountId: string;
  /** The endpoint; checked against the public-address rule at delivery time. */
  url: string;
  /** `transcript_job.completed`, `transcript_job.failed`, later the monitors' events. */
  type: string;
  /** The JSON body delivered. */
  payload: Record<string, unknown>;
  /** The event's own id, when it has one (a monitor event): its `webhook-id`. Default: a new `evt_` id. */
  id?: string;
  /** A monitor's event: signed with the monitor's secret instead of the account's, and dropped with the monitor. */
  monitorId?: string;
  /**
   * When the event happened, by the clock that decided it (a live session's batch of segments,
   * spaced by that clock). Default: the outbox's clock as it records the event.
   */
  at?: Date;
}

/**
 * Takes events for delivery. Delivery is at least once, signed with the account's `whsec_`
 * secret (Standard Webhooks), retried on a schedule, and logged; it never changes the thing
 * the event is about.
 */
export interface WebhookOutbox {
  /** Records the event for delivery, in `db` (a transaction, so it commits with the change it reports). Answers its `webhook-id`. */
  enqueue(event: WebhookEvent, db?: DatabaseOrTransaction): Promise<string>;
}

/** Records the event as a delivery due when it happened (`now`, unless it says), in `db`; answers its `webhook-id`. */
export async function recordWebhookEvent(event: WebhookEvent, db: DatabaseOrTransaction, now: Date): Promise<string> {
  const id = event.id ?? newId("evt");
  const at = event.at ?? now;
  await db.insert(webhookDeliveries).values({
    id,
    accountId: event.accountId,
    monitorId: event.monitorId ?? null,
    eventType: event.type,
    url: event.url,
    payload: event.payload,
    status: "pending",
    nextAttemptAt: at,
    createdAt: at,
  });
  return id;
}
