import { performance } from "node:perf_hooks";
import { and, asc, desc, eq, inArray, lte, notInArray, sql } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { createPublicFetch } from "../adapters/net/public-fetch.ts";
import { ApiError } from "../errors.ts";
import { newId } from "../ids.ts";
import type { Logger } from "../logger.ts";
import type { Store } from "../store/database.ts";
import { accounts, webhookAttempts, webhookDeliveries } from "../store/schema.ts";
import type { DatabaseOrTransaction, WebhookEvent, WebhookOutbox } from "./webhook-events.ts";
import { defaultRetryScheduleSeconds } from "./webhook-retry-schedule.ts";

/** The request the deliverer hands its fetch: one signed POST that must not follow redirects. */
export interface WebhookFetchInit {
  method: "POST";
  headers: Record<string, string>;
  body: string;
  redirect: "manual";
  signal: AbortSignal;
}

/**
 * Sends one attempt: the public-address fetch (`createPublicFetch`), which throws an `ApiError`
 * `invalid_input` before connecting to a target the https and public-address rules refuse.
 */
export type WebhookFetch = (url: string, init: WebhookFetchInit) => Promise<Response>;

export interface WebhooksOptions {
  logger: Logger;
  now?: () => Date;
  /** Milliseconds before each retry; after the last retry fails, the delivery is `failed`. */
  retryDelaysMs?: readonly number[];
  /** `VERBATIM_ALLOW_PRIVATE_TARGETS=1`: admits http and private addresses. */
  allowPrivateTargets?: boolean;
  /** Default: a public fetch of the deliverer's own, https only unless `allowPrivateTargets`, closed by `stop()`. */
  fetch?: WebhookFetch;
  /** How often due deliveries are looked for. Default 1 s. */
  pollIntervalMs?: number;
  /** How long one attempt may wait for the endpoint's answer. Default 10 s. */
  attemptTimeoutMs?: number;
  /** Attempts in flight in this process. Default 16. */
  concurrency?: number;
  /** Attempts in flight to one URL, so a slow endpoint cannot take every slot. Default 2. */
  concurrencyPerUrl?: number;
}

/** One delivery of the operator's list, with its last attempt. */
export interface WebhookDeliveryView {
  id: string;
  event_type: string;
  url: string;
  status: "pending" | "delivered" | "failed";
  attempts: number;
  created_at: string;
  next_attempt_at: string | null;
  delivered_at: string | null;
  last_attempt: {
    attempt: number;
    attempted_at: string;
    response_status: number | null;
    error: string | null;
    duration_ms: number;
  } | null;
}

type Claimed = Pick<typeof webhookDeliveries.$inferSelect, "id" | "accountId" | "url" | "payload" | "attempts">;

interface AttemptOutcome {
  delivered: boolean;
  responseStatus: number | null;
  error: string | null;
  /** False when no later attempt can succeed (a refused target). */
  retryable: boolean;
  durationMs: number;
}

/** Beyond the attempt timeout, how long a claim holds a delivery: a process that died mid-attempt frees it then. */
const claimMarginMs = 30_000;
/** How many due deliveries a poll looks at to fill its free slots across URLs. */
const candidateWindow = 100;

/**
 * The one webhook deliverer (Standard Webhooks): events are stored in the caller's transaction,
 * then a poller claims due deliveries (`FOR UPDATE SKIP LOCKED`, so processes sharing a database
 * never send one attempt twice), signs them with the account's current secret and sends them
 * until a 2xx, retrying on the schedule, logging every attempt in `webhook_attempts`.
 */
export class Webhooks implements WebhookOutbox {
  private readonly now: () => Date;
  private readonly retryDelaysMs: readonly number[];
  private readonly pollIntervalMs: number;
  private readonly attemptTimeoutMs: number;
  private readonly concurrency: number;
  private readonly concurrencyPerUrl: number;
  private readonly fetch: WebhookFetch;
  /** The connection pool of the default fetch, which this deliverer owns. */
  private readonly closeFetch: () => Promise<void>;
  private readonly inFlight = new Map<Promise<void>, string>();
  private running = false;
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  private pollAgain = false;
  private stopping: Promise<void> | undefined;

  constructor(
    private readonly store: Store,
    private readonly options: WebhooksOptions,
  ) {
    this.now = options.now ?? (() => new Date());
    this.retryDelaysMs = options.retryDelaysMs ?? defaultRetryScheduleSeconds.map((seconds) => seconds * 1000);
    this.pollIntervalMs = options.pollIntervalMs ?? 1_000;
    this.attemptTimeoutMs = options.attemptTimeoutMs ?? 10_000;
    this.concurrency = options.concurrency ?? 16;
    this.concurrencyPerUrl = options.concurrencyPerUrl ?? 2;
    if (options.fetch) {
      this.fetch = options.fetch;
      this.closeFetch = async () => {};
    } else {
      const publicFetch = createPublicFetch({
        allowPrivateTargets: options.allowPrivateTargets ?? false,
        httpsOnly: true,
        timeoutMs: this.attemptTimeoutMs,
      });
      this.fetch = publicFetch;
      this.closeFetch = () => publicFetch.close();
    }
  }

  async enqueue(event: WebhookEvent, db: DatabaseOrTransaction = this.store.db): Promise<string> {
    const id = newId("evt");
    const now = this.now();
    await db.insert(webhookDeliveries).values({
      id,
      accountId: event.accountId,
      eventType: event.type,
      url: event.url,
      payload: event.payload,
      status: "pending",
      nextAttemptAt: now,
      createdAt: now,
    });
    return id;
  }

  /** Starts polling for due deliveries. */
  start(): void {
    if (this.stopping) throw new Error("This webhook deliverer was stopped; create another.");
    if (this.running) return;
    this.running = true;
    this.schedulePoll(0);
  }

  /** Stops polling, waits for the attempts in flight to be sent and recorded, and closes its connections. */
  stop(): Promise<void> {
    this.stopping ??= this.shutDown();
    return this.stopping;
  }

  private async shutDown(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.polling;
    await Promise.allSettled(this.inFlight.keys());
    await this.closeFetch();
  }

  private schedulePoll(delayMs: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.polling = this.poll().finally(() => {
        this.polling = undefined;
        const again = this.pollAgain;
        this.pollAgain = false;
        if (this.running) this.schedulePoll(again ? 0 : this.pollIntervalMs);
      });
    }, delayMs);
  }

  /** Looks again at once, when a slot frees up: a backlog drains without waiting for the next tick. */
  private wake(): void {
    if (!this.running) return;
    if (this.polling) this.pollAgain = true;
    else this.schedulePoll(0);
  }

  private async poll(): Promise<void> {
    const free = this.concurrency - this.inFlight.size;
    if (free <= 0) return;
    let claimed: Claimed[];
    try {
      claimed = await this.claimDue(free);
    } catch (err) {
      this.options.logger.error({ err }, "could not claim due webhook deliveries");
      return;
    }
    for (const delivery of claimed) {
      const attempt: Promise<void> = this.attempt(delivery)
        .catch((err: unknown) => {
          // The claim stays until it lapses, then another poll retries the delivery.
          this.options.logger.error({ err, webhook_id: delivery.id }, "webhook attempt could not be recorded");
        })
        .finally(() => {
          this.inFlight.delete(attempt);
          this.wake();
        });
      this.inFlight.set(attempt, delivery.url);
    }
  }

  /**
   * Claims up to `free` due deliveries, at most `concurrencyPerUrl` per URL in flight, by moving
   * their next attempt past the attempt timeout and counting the attempt. Candidates are read
   * without locks; the claim locks and checks them again, skipping what another process holds.
   */
  private async claimDue(free: number): Promise<Claimed[]> {
    const now = this.now();
    const busyUrls = this.urlsAtCapacity();
    const due = and(eq(webhookDeliveries.status, "pending"), lte(webhookDeliveries.nextAttemptAt, now));
    const candidates = await this.store.db
      .select({ id: webhookDeliveries.id, url: webhookDeliveries.url })
      .from(webhookDeliveries)
      .where(busyUrls.length > 0 ? and(due, notInArray(webhookDeliveries.url, busyUrls)) : due)
      .orderBy(asc(webhookDeliveries.nextAttemptAt))
      .limit(candidateWindow);
    const picked = this.pickWithinUrlLimits(candidates, free);
    if (picked.length === 0) return [];
    const lockable = this.store.db
      .select({ id: webhookDeliveries.id })
      .from(webhookDeliveries)
      .where(and(inArray(webhookDeliveries.id, picked), due))
      .for("update", { skipLocked: true });
    return this.store.db
      .update(webhookDeliveries)
      .set({
        attempts: sql`${webhookDeliveries.attempts} + 1`,
        nextAttemptAt: new Date(now.getTime() + this.attemptTimeoutMs + claimMarginMs),
      })
      .where(inArray(webhookDeliveries.id, lockable))
      .returning({
        id: webhookDeliveries.id,
        accountId: webhookDeliveries.accountId,
        url: webhookDeliveries.url,
        payload: webhookDeliveries.payload,
        attempts: webhookDeliveries.attempts,
      });
  }

  private urlsAtCapacity(): string[] {
    const counts = this.inFlightPerUrl();
    return [...counts].filter(([, count]) => count >= this.concurrencyPerUrl).map(([url]) => url);
  }

  private pickWithinUrlLimits(candidates: { id: string; url: string }[], free: number): string[] {
    const counts = this.inFlightPerUrl();
    const picked: string[] = [];
    for (const candidate of candidates) {
      if (picked.length >= free) break;
      const count = counts.get(candidate.url) ?? 0;
      if (count >= this.concurrencyPerUrl) continue;
      counts.set(candidate.url, count + 1);
      picked.push(candidate.id);
    }
    return picked;
  }

  private inFlightPerUrl(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const url of this.inFlight.values()) counts.set(url, (counts.get(url) ?? 0) + 1);
    return counts;
  }

  private async attempt(delivery: Claimed): Promise<void> {
    const attemptedAt = this.now();
    const outcome = await this.send(delivery);
    const finishedAt = this.now();
    const retryDelayMs = this.retryDelaysMs[delivery.attempts - 1];
    const next = outcome.delivered
      ? { status: "delivered", deliveredAt: finishedAt, nextAttemptAt: null }
      : outcome.retryable && retryDelayMs !== undefined
        ? { status: "pending", nextAttemptAt: new Date(finishedAt.getTime() + retryDelayMs) }
        : { status: "failed", nextAttemptAt: null };
    await this.store.db.transaction(async (tx) => {
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
    const fields = {
      webhook_id: delivery.id,
      account_id: delivery.accountId,
      attempt: delivery.attempts,
      response_status: outcome.responseStatus,
      error: outcome.error,
      duration_ms: outcome.durationMs,
      status: next.status,
    };
    if (next.status === "delivered") this.options.logger.info(fields, "webhook delivered");
    else if (next.status === "pending") this.options.logger.warn(fields, "webhook attempt failed; will retry");
    else this.options.logger.error(fields, "webhook delivery failed for good");
  }

  private async send(delivery: Claimed): Promise<AttemptOutcome> {
    // Read at every attempt, so a rotated secret signs the attempts after the rotation.
    const secret = await this.secretOf(delivery.accountId);
    const body = JSON.stringify(delivery.payload);
    const signedAt = this.now();
    const headers = {
      "content-type": "application/json",
      "user-agent": "Verbatim-Webhooks/1",
      "webhook-id": delivery.id,
      "webhook-timestamp": String(Math.floor(signedAt.getTime() / 1000)),
      "webhook-signature": new Webhook(secret).sign(delivery.id, signedAt, body),
    };
    const signal = AbortSignal.timeout(this.attemptTimeoutMs);
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    try {
      const response = await this.fetch(delivery.url, {
        method: "POST",
        headers,
        body,
        redirect: "manual",
        signal,
      });
      const durationMs = elapsed();
      // The answer's body is not needed; cancelling it frees the connection.
      await response.body?.cancel().catch(() => undefined);
      const status = response.status;
      if (status >= 200 && status < 300) {
        return { delivered: true, responseStatus: status, error: null, retryable: true, durationMs };
      }
      const error =
        status >= 300 && status < 400
          ? `answered HTTP ${status}, a redirect${redirectTarget(response)}, which is not followed`
          : `answered HTTP ${status}`;
      return { delivered: false, responseStatus: status, error, retryable: true, durationMs };
    } catch (cause) {
      const durationMs = elapsed();
      // A refused scheme or address: no retry can make the target acceptable.
      if (cause instanceof ApiError && cause.code === "invalid_input") {
        return {
          delivered: false,
          responseStatus: null,
          error: `refused: ${cause.message}`,
          retryable: false,
          durationMs,
        };
      }
      const timedOut = signal.aborted || (cause instanceof ApiError && cause.code === "timeout");
      const error = timedOut
        ? `no answer within ${this.attemptTimeoutMs} ms (timeout)`
        : `request failed: ${describeFailure(cause)}`;
      return { delivered: false, responseStatus: null, error, retryable: true, durationMs };
    }
  }

  private async secretOf(accountId: string): Promise<string> {
    const [row] = await this.store.db
      .select({ secret: accounts.webhookSecret })
      .from(accounts)
      .where(eq(accounts.id, accountId));
    if (!row) throw new Error(`No account ${accountId} for a webhook delivery.`);
    return row.secret;
  }
}

/** Builds the deliverer; `start()` it where deliveries should be sent, `stop()` it on shutdown. */
export function createWebhooks(store: Store, options: WebhooksOptions): Webhooks {
  return new Webhooks(store, options);
}

/** An account's most recent deliveries, newest first, each with its last attempt: for the operator. */
export async function recentWebhookDeliveries(
  store: Store,
  accountId: string,
  limit: number,
): Promise<WebhookDeliveryView[]> {
  const [account] = await store.db.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, accountId));
  if (!account) throw new ApiError("not_found", `No account ${accountId}.`);
  const deliveries = await store.db
    .select()
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.accountId, accountId))
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
    .limit(limit);
  if (deliveries.length === 0) return [];
  const attempts = await store.db
    .selectDistinctOn([webhookAttempts.deliveryId])
    .from(webhookAttempts)
    .where(
      inArray(
        webhookAttempts.deliveryId,
        deliveries.map((delivery) => delivery.id),
      ),
    )
    .orderBy(webhookAttempts.deliveryId, desc(webhookAttempts.attempt), desc(webhookAttempts.id));
  const lastAttempts = new Map(attempts.map((attempt) => [attempt.deliveryId, attempt]));
  return deliveries.map((delivery) => {
    const last = lastAttempts.get(delivery.id);
    return {
      id: delivery.id,
      event_type: delivery.eventType,
      url: delivery.url,
      status: delivery.status as WebhookDeliveryView["status"],
      attempts: delivery.attempts,
      created_at: delivery.createdAt.toISOString(),
      next_attempt_at: delivery.nextAttemptAt?.toISOString() ?? null,
      delivered_at: delivery.deliveredAt?.toISOString() ?? null,
      last_attempt: last
        ? {
            attempt: last.attempt,
            attempted_at: last.attemptedAt.toISOString(),
            response_status: last.responseStatus,
            error: last.error,
            duration_ms: last.durationMs,
          }
        : null,
    };
  });
}

function redirectTarget(response: Response): string {
  const location = response.headers.get("location");
  return location ? ` to ${location}` : "";
}

/** fetch reports a network failure as "fetch failed" with the system error as its cause; the public fetch says it in words. */
function describeFailure(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause;
  return cause instanceof Error ? cause.message : error.message;
}
