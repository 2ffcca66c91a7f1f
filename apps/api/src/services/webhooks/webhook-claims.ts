import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { and, eq, inArray, lte, sql } from "drizzle-orm";
import type { Logger } from "../../logger.ts";
import type { Store } from "../../store/database.ts";
import { webhookDeliveries } from "../../store/schema.ts";
import { AccountSlots, type SlotLease } from "../accounts/index.ts";
import { type HostCircuits, hostOf } from "./webhook-circuits.ts";

/** A delivery claimed for one attempt, its `attempts` already counting it. */
export type ClaimedDelivery = Pick<
  typeof webhookDeliveries.$inferSelect,
  "id" | "accountId" | "monitorId" | "url" | "payload" | "attempts"
>;

/** Where an attempt in flight goes, for the per-host and per-account limits. */
export interface InFlightAttempt {
  host: string;
  accountId: string;
}

/** A slot an attempt holds, and the pool it goes back to. */
export interface AttemptSlot {
  pool: AccountSlots;
  lease: SlotLease;
}

/** A claimed delivery and the slots of its host and account. */
export interface LeasedDelivery {
  delivery: ClaimedDelivery;
  slots: AttemptSlot[];
}

type Candidate = { id: string; url: string; account_id: string };

export interface WebhookClaimsOptions {
  logger: Logger;
  now: () => Date;
  /** How long one attempt may wait for the endpoint's answer. */
  attemptTimeoutMs: number;
  /** Attempts in flight for one account, by every process on the database together. */
  concurrencyPerAccount: number;
  /** How long the host and account slots of an attempt outlive a process that died mid-attempt. */
  slotLeaseSeconds: number;
  /** How many attempts each host may have in flight now. */
  circuits: HostCircuits;
}

/** Beyond the attempt timeout, how long a claim holds a delivery: a process that died mid-attempt frees it then. */
const claimMarginMs = 30_000;
/** How many due deliveries a poll looks at to fill its free slots across accounts and hosts. */
const candidateWindow = 100;

/**
 * Claims due webhook deliveries fairly: `FOR UPDATE SKIP LOCKED`, so processes sharing a database
 * never send one attempt twice, within limits per host and per account that hold across processes.
 * Each attempt leases a slot of its host and one of its account in `slot_leases`, renewed while
 * the process lives.
 */
export class WebhookClaims {
  private readonly hostSlots: AccountSlots;
  private readonly accountSlots: AccountSlots;
  /** Slots whose release failed, given back at the next poll: renewed with this process's other slots, they would never lapse. */
  private readonly unreleased: AttemptSlot[] = [];

  constructor(
    private readonly store: Store,
    private readonly options: WebhookClaimsOptions,
  ) {
    const leases = {
      holder: `webhooks:${hostname()}:${process.pid}:${randomUUID()}`,
      leaseSeconds: options.slotLeaseSeconds,
      now: options.now,
    };
    this.hostSlots = new AccountSlots(store, { pool: "webhook_host", ...leases });
    this.accountSlots = new AccountSlots(store, { pool: "webhook_account", ...leases });
  }

  /**
   * Claims up to `free` due deliveries within the limits per host and per account, each with its
   * slots of them, skipping hosts whose circuit is open, by moving their next attempt past the
   * attempt timeout and counting the attempt. Candidates take turns by account (each account's
   * oldest first, then each one's second...), so one account's backlog cannot hide another's
   * delivery. They are read without locks; the claim locks and checks them again, skipping what
   * another process holds. `inFlight` are this process's attempts still running.
   */
  async claimDue(free: number, inFlight: Iterable<InFlightAttempt>): Promise<LeasedDelivery[]> {
    const now = this.options.now();
    const candidates = await this.store.query<Candidate>(sql`
      select id, url, account_id from (
        select id, url, account_id, next_attempt_at,
               row_number() over (partition by account_id order by next_attempt_at, id) as turn
          from webhook_deliveries
         where status = 'pending' and next_attempt_at <= ${now.toISOString()}::timestamptz
      ) due
      order by turn, next_attempt_at, id
      limit ${candidateWindow}`);
    const leased = await this.leaseWithinLimits(candidates, free, now.getTime(), inFlight);
    if (leased.size === 0) return [];
    const due = and(eq(webhookDeliveries.status, "pending"), lte(webhookDeliveries.nextAttemptAt, now));
    const lockable = this.store.db
      .select({ id: webhookDeliveries.id })
      .from(webhookDeliveries)
      .where(and(inArray(webhookDeliveries.id, [...leased.keys()]), due))
      .for("update", { skipLocked: true });
    let claimed: ClaimedDelivery[];
    try {
      claimed = await this.store.db
        .update(webhookDeliveries)
        .set({
          attempts: sql`${webhookDeliveries.attempts} + 1`,
          nextAttemptAt: new Date(now.getTime() + this.options.attemptTimeoutMs + claimMarginMs),
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

  /** Releases slots; one that cannot be released now is kept to try again at the next poll. */
  async giveBack(slots: AttemptSlot[]): Promise<void> {
    for (const slot of slots) {
      try {
        await slot.pool.release(slot.lease);
      } catch (err) {
        this.unreleased.push(slot);
        this.options.logger.warn({ err, lease: slot.lease.id }, "could not release a webhook slot; will try again");
      }
    }
  }

  /** Tries again to release the slots whose release failed. */
  giveBackUnreleased(): Promise<void> {
    return this.giveBack(this.unreleased.splice(0));
  }

  /** Releases every slot this process holds; lapsing anyway once no longer renewed, they are free at once when this works. */
  async releaseAll(): Promise<void> {
    await Promise.allSettled([this.hostSlots.releaseAll(), this.accountSlots.releaseAll()]);
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
    inFlight: Iterable<InFlightAttempt>,
  ): Promise<Map<string, AttemptSlot[]>> {
    const perHost = new Map<string, number>();
    const perAccount = new Map<string, number>();
    for (const { host, accountId } of inFlight) {
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
        const allowance = this.options.circuits.allowance(host, nowMs);
        const hostCount = perHost.get(host) ?? 0;
        const accountCount = perAccount.get(candidate.account_id) ?? 0;
        if (hostCount >= allowance || accountCount >= this.options.concurrencyPerAccount) continue;
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
      accountLease = await this.accountSlots.acquire(accountId, this.options.concurrencyPerAccount);
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
}
