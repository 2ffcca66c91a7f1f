import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { performance } from "node:perf_hooks";
import { and, eq, inArray, lte, sql } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { createPublicFetch } from "../adapters/net/public-fetch.ts";
import { ApiError } from "../errors.ts";
import { newId } from "../ids.ts";
import type { Logger } from "../logger.ts";
import type { ServiceMetrics } from "../metrics.ts";
import type { DatabaseOrTransaction, Store } from "../store/database.ts";
import { accounts, monitors, webhookAttempts, webhookDeliveries } from "../store/schema.ts";
import { AccountSlots, type SlotLease } from "./slots.ts";
import type { WebhookEvent, WebhookOutbox } from "./webhook-events.ts";
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

type Claimed = Pick<
  typeof webhookDeliveries.$inferSelect,
  "id" | "accountId" | "monitorId" | "url" | "payload" | "attempts"
>;

interface AttemptOutcome {
  delivered: boolean;
  responseStatus: number | null;
  error: string | null;
  /** False when no later attempt can succeed (a refused target). */
  retryable: boolean;
  durationMs: number;
  /** No answer came at all (a timeout or a failed connection): what the circuit breaker counts. */
  unreachable: boolean;
}

/** Where an attempt in flight goes, for the per-host and per-account limits. */
interface InFlightAttempt {
  host: string;
  accountId: string;
}

/** A slot an attempt holds, and the pool it goes back to. */
interface AttemptSlot {
  pool: AccountSlots;
  lease: SlotLease;
}

/** A claimed delivery and the slots of its host and account. */
interface LeasedDelivery {
  delivery: Claimed;
  slots: AttemptSlot[];
}

type Candidate = { id: string; url: string; account_id: string };

/** A host that stopped answering: its deliveries wait until `openUntil`, then one attempt probes it. */
interface HostCircuit {
  consecutiveFailures: number;
  openUntil: number;
}

/** Beyond the attempt timeout, how long a claim holds a delivery: a process that died mid-attempt frees it then. */
const claimMarginMs = 30_000;
/** How many due deliveries a poll looks at to fill its free slots across accounts and hosts. */
const candidateWindow = 100;

/**
 * The one webhook deliverer (Standard Webhooks): events are stored in the caller's transaction,
 * then a poller claims due deliveries (`FOR UPDATE SKIP LOCKED`, so processes sharing a database
 * never send one attempt twice), signs them with the account's current secret and sends them
 * until a 2xx, retrying on the schedule, logging every attempt in `webhook_attempts`.
 *
 * The limits per host and per account hold across processes: each attempt leases a slot of its
 * host and one of its account in `slot_leases`, renewed while the process lives. The circuit
 * breaker is this process's own.
 */
export class Webhooks implements WebhookOutbox {
  private readonly now: () => Date;
  private readonly retryDelaysMs: readonly number[];
  private readonly pollIntervalMs: number;
  private readonly attemptTimeoutMs: number;
  private readonly concurrency: number;
  private readonly concurrencyPerHost: number;
  private readonly concurrencyPerAccount: number;
  private readonly breakerThreshold: number;
  private readonly breakerCooldownMs: number;
  /** Hosts with failures in a row, in this process. */
  private readonly circuits = new Map<string, HostCircuit>();
  private readonly fetch: WebhookFetch;
  /** The connection pool of the default fetch, which this deliverer owns. */
  private readonly closeFetch: () => Promise<void>;
  private readonly inFlight = new Map<Promise<void>, InFlightAttempt>();
  private readonly hostSlots: AccountSlots;
  private readonly accountSlots: AccountSlots;
  /** Slots whose release failed, given back at the next poll: renewed with this process's other slots, they would never lapse. */
  private readonly unreleased: AttemptSlot[] = [];
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
    this.concurrencyPerHost = options.concurrencyPerHost ?? 2;
    this.concurrencyPerAccount = options.concurrencyPerAccount ?? 4;
    this.breakerThreshold = options.breakerThreshold ?? 5;
    this.breakerCooldownMs = options.breakerCooldownMs ?? 60_000;
    const leases = {
      holder: `webhooks:${hostname()}:${process.pid}:${randomUUID()}`,
      leaseSeconds: options.slotLeaseSeconds ?? 15,
      now: this.now,
    };
    this.hostSlots = new AccountSlots(store, { pool: "webhook_host", ...leases });
    this.accountSlots = new AccountSlots(store, { pool: "webhook_account", ...leases });
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

  async enqueue(event: WebhookEvent, db: DatabaseOrTransaction = this.store.db): Promise<string> {
    const id = event.id ?? newId("evt");
    const now = this.now();
    await db.insert(webhookDeliveries).values({
      id,
      accountId: event.accountId,
      monitorId: event.monitorId ?? null,
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
    // Lapsing anyway once no longer renewed, the slots are free at once when this works.
    if (this.started) await Promise.allSettled([this.hostSlots.releaseAll(), this.accountSlots.releaseAll()]);
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
    await this.giveBack(this.unreleased.splice(0));
    const free = this.concurrency - this.inFlight.size;
    if (free <= 0) return;
    let claimed: LeasedDelivery[];
    try {
      claimed = await this.claimDue(free);
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
        .then(() => this.giveBack(slots))
        .finally(() => {
          this.inFlight.delete(attempt);
          this.wake();
        });
      this.inFlight.set(attempt, { host: hostOf(delivery.url), accountId: delivery.accountId });
    }
  }

  /**
   * Claims up to `free` due deliveries within the limits per host and per account, each with its
   * slots of them, skipping hosts whose circuit is open, by moving their next attempt past the
   * attempt timeout and counting the attempt. Candidates take turns by account (each account's
   * oldest first, then each one's second...), so one account's backlog cannot hide another's
   * delivery. They are read without locks; the claim locks and checks them again, skipping what
   * another process holds.
   */
  private async claimDue(free: number): Promise<LeasedDelivery[]> {
    const now = this.now();
    const candidates = await this.store.query<Candidate>(sql`
      select id, url, account_id from (
        select id, url, account_id, next_attempt_at,
               row_number() over (partition by account_id order by next_attempt_at, id) as turn
          from webhook_deliveries
         where status = 'pending' and next_attempt_at <= ${now.toISOString()}::timestamptz
      ) due
      order by turn, next_attempt_at, id
      limit ${candidateWindow}`);
    const leased = await this.leaseWithinLimits(candidates, free, now.getTime());
    if (leased.size === 0) return [];
    const due = and(eq(webhookDeliveries.status, "pending"), lte(webhookDeliveries.nextAttemptAt, now));
    const lockable = this.store.db
      .select({ id: webhookDeliveries.id })
      .from(webhookDeliveries)
      .where(and(inArray(webhookDeliveries.id, [...leased.keys()]), due))
      .for("update", { skipLocked: true });
    let claimed: Claimed[];
    try {
      claimed = await this.store.db
        .update(webhookDeliveries)
        .set({
          attempts: sql`${webhookDeliveries.attempts} + 1`,
          nextAttemptAt: new Date(now.getTime() + this.attemptTimeoutMs + claimMarginMs),
        })
        .where(inArray(webhookDeliveries.id, lockable))
        .returning({
          id: webhookDeliveries.id,
          accountId: webhookDeliveries.accountId,
          monitorId: webhookDeliveries.monitorId,
          url: webhookDeliveries.url,
          payload: webhookDeliveries.payload,
          attempts: webhookDeliveries.attempts,
        });
    } catch (error) {
      await this.giveBack([...leased.values()].flat());
      throw error;
    }
    const claimedIds = new Set(claimed.map((delivery) => delivery.id));
    // Another process claimed these since they were read: their slots go back.
    await this.giveBack([...leased].flatMap(([id, slots]) => (claimedIds.has(id) ? [] : slots)));
    return claimed.map((delivery) => ({ delivery, slots: leased.get(delivery.id) ?? [] }));
  }

  /**
   * Takes, in the candidates' order, the slots of up to `free` of them: one of the host's (one
   * alone while its circuit probes it) and one of the account's, shared with every process on the
   * database. This process's own attempts are counted first, sparing a round trip for a host or
   * account it fills itself; one found full is not asked again in this poll.
   */
  private async leaseWithinLimits(
    candidates: Candidate[],
    free: number,
    nowMs: number,
  ): Promise<Map<string, AttemptSlot[]>> {
    const perHost = new Map<string, number>();
    const perAccount = new Map<string, number>();
    for (const { host, accountId } of this.inFlight.values()) {
      perHost.set(host, (perHost.get(host) ?? 0) + 1);
      perAccount.set(accountId, (perAccount.get(accountId) ?? 0) + 1);
    }
    const fullHosts = new Set<string>();
    const fullAccounts = new Set<string>();
    const leased = new Map<string, AttemptSlot[]>();
    try {
      for (const candidate of candidates) {
        if (leased.size >= free) break;
        const host = hostOf(candidate.url);
        const allowance = this.hostAllowance(host, nowMs);
        const hostCount = perHost.get(host) ?? 0;
        const accountCount = perAccount.get(candidate.account_id) ?? 0;
        if (hostCount >= allowance || accountCount >= this.concurrencyPerAccount) continue;
        if (fullHosts.has(host) || fullAccounts.has(candidate.account_id)) continue;
        const slots = await this.takeSlots(host, candidate.account_id, allowance);
        if (slots === "host_full") fullHosts.add(host);
        else if (slots === "account_full") fullAccounts.add(candidate.account_id);
        else {
          leased.set(candidate.id, slots);
          perHost.set(host, hostCount + 1);
          perAccount.set(candidate.account_id, accountCount + 1);
        }
      }
    } catch (error) {
      await this.giveBack([...leased.values()].flat());
      throw error;
    }
    return leased;
  }

  /** A slot of the host's and one of the account's, or which of the two is full. */
  private async takeSlots(
    host: string,
    accountId: string,
    hostAllowance: number,
  ): Promise<AttemptSlot[] | "host_full" | "account_full"> {
    const hostLease = await this.hostSlots.acquire(host, hostAllowance);
    if (!hostLease) return "host_full";
    const hostSlot = { pool: this.hostSlots, lease: hostLease };
    let accountLease: SlotLease | null;
    try {
      accountLease = await this.accountSlots.acquire(accountId, this.concurrencyPerAccount);
    } catch (error) {
      await this.giveBack([hostSlot]);
      throw error;
    }
    if (!accountLease) {
      await this.giveBack([hostSlot]);
      return "account_full";
    }
    return [hostSlot, { pool: this.accountSlots, lease: accountLease }];
  }

  /** Releases slots; one that cannot be released now is kept to try again at the next poll. */
  private async giveBack(slots: AttemptSlot[]): Promise<void> {
    for (const slot of slots) {
      try {
        await slot.pool.release(slot.lease);
      } catch (err) {
        this.unreleased.push(slot);
        this.options.logger.warn({ err, lease: slot.lease.id }, "could not release a webhook slot; will try again");
      }
    }
  }

  /** Attempts a host may have in flight: none while its circuit is open, one to probe it once the cool-down passed. */
  private hostAllowance(host: string, nowMs: number): number {
    const circuit = this.circuits.get(host);
    if (!circuit || circuit.consecutiveFailures < this.breakerThreshold) return this.concurrencyPerHost;
    return nowMs < circuit.openUntil ? 0 : 1;
  }

  /** Counts an attempt's outcome for its host's circuit: a host that answers, whatever it says, is reachable. */
  private recordReachability(url: string, unreachable: boolean): void {
    const host = hostOf(url);
    if (!unreachable) {
      this.circuits.delete(host);
      return;
    }
    const circuit = this.circuits.get(host) ?? { consecutiveFailures: 0, openUntil: 0 };
    circuit.consecutiveFailures += 1;
    if (circuit.consecutiveFailures >= this.breakerThreshold) {
      circuit.openUntil = this.now().getTime() + this.breakerCooldownMs;
      this.options.logger.warn(
        { host, consecutive_failures: circuit.consecutiveFailures, cooldown_ms: this.breakerCooldownMs },
        "webhook host keeps failing; its deliveries wait",
      );
    }
    this.circuits.set(host, circuit);
  }

  private async attempt(delivery: Claimed): Promise<void> {
    // Read at every attempt, so a rotated secret signs the attempts after the rotation.
    const secret = await this.secretOf(delivery);
    if (secret === null) return;
    const attemptedAt = this.now();
    const outcome = await this.send(delivery, secret);
    this.recordReachability(delivery.url, outcome.unreachable);
    const finishedAt = this.now();
    const retryDelayMs = this.retryDelaysMs[delivery.attempts - 1];
    const next = outcome.delivered
      ? { status: "delivered", deliveredAt: finishedAt, nextAttemptAt: null }
      : outcome.retryable && retryDelayMs !== undefined
        ? { status: "pending", nextAttemptAt: new Date(finishedAt.getTime() + retryDelayMs) }
        : { status: "failed", nextAttemptAt: null };
    this.options.metrics?.webhookAttempted(
      next.status === "delivered" ? "delivered" : next.status === "pending" ? "retrying" : "failed",
    );
    await this.store.db.transaction(async (tx) => {
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

  private async send(delivery: Claimed, secret: string): Promise<AttemptOutcome> {
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
        return {
          delivered: true,
          responseStatus: status,
          error: null,
          retryable: true,
          durationMs,
          unreachable: false,
        };
      }
      const error =
        status >= 300 && status < 400
          ? `answered HTTP ${status}, a redirect${redirectTarget(response)}, which is not followed`
          : `answered HTTP ${status}`;
      return { delivered: false, responseStatus: status, error, retryable: true, durationMs, unreachable: false };
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
          unreachable: false,
        };
      }
      const timedOut = signal.aborted || (cause instanceof ApiError && cause.code === "timeout");
      const error = timedOut
        ? `no answer within ${this.attemptTimeoutMs} ms (timeout)`
        : `request failed: ${describeFailure(cause)}`;
      return { delivered: false, responseStatus: null, error, retryable: true, durationMs, unreachable: true };
    }
  }

  /**
   * A monitor's event is signed with the monitor's secret, any other with the account's; `null`
   * when the monitor was deleted after the claim, taking the delivery with it.
   */
  private async secretOf(delivery: Claimed): Promise<string | null> {
    const [row] = delivery.monitorId
      ? await this.store.db
          .select({ secret: monitors.webhookSecret })
          .from(monitors)
          .where(eq(monitors.id, delivery.monitorId))
      : await this.store.db
          .select({ secret: accounts.webhookSecret })
          .from(accounts)
          .where(eq(accounts.id, delivery.accountId));
    if (row) return row.secret;
    if (delivery.monitorId) return null;
    throw new Error(`No account ${delivery.accountId} for webhook delivery ${delivery.id}.`);
  }
}

/** Builds the deliverer; `start()` it where deliveries should be sent, `stop()` it on shutdown. */
export function createWebhooks(store: Store, options: WebhooksOptions): Webhooks {
  return new Webhooks(store, options);
}

/** An account's most recent deliveries, newest first, each with its last attempt: for the operator. */

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

/** The host and port a delivery goes to: limits and circuits are per receiver, whatever the path or query. */
function hostOf(url: string): string {
  return URL.parse(url)?.host ?? url;
}
