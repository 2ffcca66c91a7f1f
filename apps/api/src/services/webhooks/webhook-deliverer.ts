import { createPublicFetch } from "../../adapters/net/public-fetch.ts";
import type { Logger } from "../../logger.ts";
import type { ServiceMetrics } from "../../metrics.ts";
import type { DatabaseOrTransaction, Store } from "../../store/database.ts";
import { HostCircuits, hostOf } from "./webhook-circuits.ts";
import { type ClaimedDelivery, type InFlightAttempt, type LeasedDelivery, WebhookClaims } from "./webhook-claims.ts";
import { recordWebhookEvent, type WebhookEvent, type WebhookOutbox } from "./webhook-events.ts";
import { logAttempt, recordAttempt, stateAfter } from "./webhook-outcomes.ts";
import { defaultRetryScheduleSeconds } from "./webhook-retry-schedule.ts";
import { sendAttempt, signingSecretOf, type WebhookFetch } from "./webhook-send.ts";

export interface WebhooksOptions {
  logger: Logger;
  now?: () => Date;
  /** Milliseconds before each retry; after the last retry fails, the delivery is `failed`. */
  retryDelaysMs?: readonly number[];
  /** `VERBATIM_ALLOW_PRIVATE_TARGETS=1`: admits http and private addresses. */
  allowPrivateTargets?: boolean;
  /** `VERBATIM_CA_FILE` read by `caCertificatesFrom`: the certificate authorities the default fetch trusts. */
  ca?: readonly string[];
  /** Default: a public fetch of the deliverer's own, https only unless `allowPrivateTargets`, closed by `stop()`. */
  fetch?: WebhookFetch;
  /** How often due deliveries are looked for. Default 1 s. */
  pollIntervalMs?: number;
  /** How long one attempt may wait for the endpoint's answer. Default 10 s. */
  attemptTimeoutMs?: number;
  /** Attempts in flight in this process. Default 16. */
  concurrency?: number;
  /**
   * Attempts in flight to one host (name and port, whatever the path), by every process on the
   * database together, so a slow receiver cannot take every slot. Default 2.
   */
  concurrencyPerHost?: number;
  /**
   * Attempts in flight for one account, by every process on the database together, so one
   * account's failing receivers cannot take every slot. Default 4.
   */
  concurrencyPerAccount?: number;
  /** How long the host and account slots of an attempt outlive a process that died mid-attempt. Default 15 s. */
  slotLeaseSeconds?: number;
  /** Consecutive timeouts or connection failures, in this process, after which a host's deliveries wait here. Default 5. */
  breakerThreshold?: number;
  /** How long a host that kept failing is left alone before one attempt tries it again. Default 60 s. */
  breakerCooldownMs?: number;
  /** Counts each attempt's outcome. */
  metrics?: ServiceMetrics;
}

/**
 * The one webhook deliverer (Standard Webhooks): events are stored in the caller's transaction,
 * then a poller claims due deliveries (`WebhookClaims`: within the limits per host and per
 * account, never one attempt twice), signs them with the account's current secret and sends them
 * until a 2xx, retrying on the schedule, logging every attempt in `webhook_attempts`. The circuit
 * breaker (`HostCircuits`) is this process's own.
 */
export class Webhooks implements WebhookOutbox {
  private readonly now: () => Date;
  private readonly retryDelaysMs: readonly number[];
  private readonly pollIntervalMs: number;
  private readonly attemptTimeoutMs: number;
  private readonly concurrency: number;
  private readonly circuits: HostCircuits;
  private readonly claims: WebhookClaims;
  private readonly fetch: WebhookFetch;
  /** The connection pool of the default fetch, which this deliverer owns. */
  private readonly closeFetch: () => Promise<void>;
  private readonly inFlight = new Map<Promise<void>, InFlightAttempt>();
  private running = false;
  /** Whether it was ever started, and so may hold slots. */
  private started = false;
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
    this.circuits = new HostCircuits({
      logger: options.logger,
      now: this.now,
      concurrencyPerHost: options.concurrencyPerHost ?? 2,
      threshold: options.breakerThreshold ?? 5,
      cooldownMs: options.breakerCooldownMs ?? 60_000,
    });
    this.claims = new WebhookClaims(store, {
      logger: options.logger,
      now: this.now,
      attemptTimeoutMs: this.attemptTimeoutMs,
      concurrencyPerAccount: options.concurrencyPerAccount ?? 4,
      slotLeaseSeconds: options.slotLeaseSeconds ?? 15,
      circuits: this.circuits,
    });
    if (options.fetch) {
      this.fetch = options.fetch;
      this.closeFetch = async () => {};
    } else {
      const publicFetch = createPublicFetch({
        allowPrivateTargets: options.allowPrivateTargets ?? false,
        httpsOnly: true,
        timeoutMs: this.attemptTimeoutMs,
        ...(options.ca ? { ca: options.ca } : {}),
      });
      this.fetch = publicFetch;
      this.closeFetch = () => publicFetch.close();
    }
  }

  enqueue(event: WebhookEvent, db: DatabaseOrTransaction = this.store.db): Promise<string> {
    return recordWebhookEvent(event, db, this.now());
  }

  /** Starts polling for due deliveries. */
  start(): void {
    if (this.stopping) throw new Error("This webhook deliverer was stopped; create another.");
    if (this.running) return;
    this.running = true;
    this.started = true;
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
    if (this.started) await this.claims.releaseAll();
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
    await this.claims.giveBackUnreleased();
    const free = this.concurrency - this.inFlight.size;
    if (free <= 0) return;
    let claimed: LeasedDelivery[];
    try {
      claimed = await this.claims.claimDue(free, this.inFlight.values());
    } catch (err) {
      this.options.logger.error({ err }, "could not claim due webhook deliveries");
      return;
    }
    for (const { delivery, slots } of claimed) {
      const attempt: Promise<void> = this.attempt(delivery)
        .catch((err: unknown) => {
          // The claim stays until it lapses, then another poll retries the delivery.
          this.options.logger.error({ err, webhook_id: delivery.id }, "webhook attempt could not be recorded");
        })
        .then(() => this.claims.giveBack(slots))
        .finally(() => {
          this.inFlight.delete(attempt);
          this.wake();
        });
      this.inFlight.set(attempt, { host: hostOf(delivery.url), accountId: delivery.accountId });
    }
  }

  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    // Read at every attempt, so a rotated secret signs the attempts after the rotation.
    const secret = await signingSecretOf(this.store, delivery);
    if (secret === null) return;
    const attemptedAt = this.now();
    const outcome = await sendAttempt(delivery, secret, {
      fetch: this.fetch,
      now: this.now,
      attemptTimeoutMs: this.attemptTimeoutMs,
    });
    this.circuits.recordReachability(delivery.url, outcome.unreachable);
    const next = stateAfter(outcome, delivery.attempts, this.retryDelaysMs, this.now());
    this.options.metrics?.webhookAttempted(
      next.status === "delivered" ? "delivered" : next.status === "pending" ? "retrying" : "failed",
    );
    await recordAttempt(this.store, delivery, attemptedAt, outcome, next);
    logAttempt(this.options.logger, delivery, outcome, next);
  }
}

/** Builds the deliverer; `start()` it where deliveries should be sent, `stop()` it on shutdown. */
export function createWebhooks(store: Store, options: WebhooksOptions): Webhooks {
  return new Webhooks(store, options);
}
