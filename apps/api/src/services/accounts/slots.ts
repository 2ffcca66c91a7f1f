import { type SQL, sql } from "drizzle-orm";
import { newId } from "../../ids.ts";
import type { Store } from "../../store/database.ts";
import { retryUntilReachable } from "../../store/retry-until-reachable.ts";

/**
 * Which limit a slot counts against: `extraction`, the requests an account runs at once
 * (docs/decisions.md, rule 7); `transcription`, its jobs running at once on every worker (the
 * plan's workers); `webhook_account`, its webhook attempts in flight; `webhook_host`, the webhook
 * attempts in flight to one receiver, whose slots are keyed by its host (name and port) instead
 * of an account.
 */
export type SlotPool = "extraction" | "transcription" | "webhook_account" | "webhook_host";

/** A held slot. */
export interface SlotLease {
  id: string;
  accountId: string;
}

export interface AccountSlotsOptions {
  pool: SlotPool;
  /** Identifies this process; it renews every lease it holds together. */
  holder: string;
  /** How long a lease lives without renewal: a dead process's slots come back after it. */
  leaseSeconds: number;
  now: () => Date;
}

/**
 * An account's slots of one pool, shared by every process on the database. A lease is renewed
 * while its process lives; when the process dies the lease expires and the slot frees itself.
 */
export class AccountSlots {
  private readonly held = new Set<string>();
  private renewal: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: Store,
    private readonly options: AccountSlotsOptions,
  ) {}

  /** Takes one slot of the account, or answers `null` when all `slots` are busy. */
  async acquire(accountId: string, slots: number): Promise<SlotLease | null> {
    const { leaseId, taken } = this.acquisitionWithin(sql`${accountId}`, sql`${slots}`);
    const [row] = await this.store.query<{ acquired: boolean }>(sql`select ${taken} as acquired`);
    if (!row?.acquired) return null;
    const lease = { id: leaseId, accountId };
    this.adopt(lease);
    return lease;
  }

  /**
   * Taking a slot inside a caller's statement, so a request's admission and its slot are one
   * round trip: `taken` is a SQL expression, true when the slot was taken. Once the statement
   * answered true, `adopt` the lease.
   */
  acquisitionWithin(accountId: SQL, slots: SQL): { leaseId: string; taken: SQL } {
    const leaseId = newId("slot");
    return {
      leaseId,
      taken: sql`(select acquired from verbatim_acquire_slot(${leaseId}, ${accountId}, ${this.options.pool}, ${slots},
                    ${this.options.holder}, ${this.options.now().toISOString()}::timestamptz, ${this.options.leaseSeconds}))`,
    };
  }

  /** Makes a lease a caller's statement took (`acquisitionWithin`) this process's to renew and release. */
  adopt(lease: SlotLease): void {
    this.held.add(lease.id);
    this.scheduleRenewal();
  }

  /**
   * Gives the slot back. Releasing twice is harmless. A release the store did not answer is tried
   * again until it does, within the lease: a slot left held after an outage would refuse the
   * account's requests until its lease lapsed. Answers whether the first attempt gave it back.
   */
  release(lease: SlotLease): Promise<boolean> {
    this.forget(lease);
    return retryUntilReachable(
      () => this.store.query(sql`delete from slot_leases where id = ${lease.id}`),
      this.options.leaseSeconds * 1000,
    );
  }

  /** Stops renewing a lease a caller's statement gave back (`deliverStored`). */
  forget(lease: SlotLease): void {
    this.held.delete(lease.id);
    if (this.held.size === 0) this.stopRenewal();
  }

  /** Extends every lease this process holds. */
  async renew(): Promise<void> {
    if (this.held.size === 0) return;
    const expiresAt = new Date(this.options.now().getTime() + this.options.leaseSeconds * 1000);
    await this.store.query(
      sql`update slot_leases set expires_at = ${expiresAt.toISOString()}::timestamptz
           where holder = ${this.options.holder} and pool = ${this.options.pool}`,
    );
  }

  /** Slots of the account's pool in use now, by every process. */
  async inUse(accountId: string): Promise<number> {
    const [row] = await this.store.query<{ in_use: number }>(
      sql`select count(*)::int as in_use from slot_leases
           where account_id = ${accountId} and pool = ${this.options.pool}
             and expires_at > ${this.options.now().toISOString()}::timestamptz`,
    );
    return row?.in_use ?? 0;
  }

  /** Gives back every slot this process holds, at once: a stopping process's slots are free when it exits. */
  async releaseAll(): Promise<void> {
    this.held.clear();
    this.stopRenewal();
    await this.store.query(
      sql`delete from slot_leases where holder = ${this.options.holder} and pool = ${this.options.pool}`,
    );
  }

  /** Stops renewing; held leases expire on their own. */
  close(): void {
    this.stopRenewal();
  }

  private scheduleRenewal(): void {
    if (this.renewal) return;
    // Renewing at a third of the lease leaves two chances before a live process's lease lapses.
    this.renewal = setInterval(() => void this.renew().catch(() => undefined), (this.options.leaseSeconds * 1000) / 3);
    this.renewal.unref();
  }

  private stopRenewal(): void {
    clearInterval(this.renewal);
    this.renewal = undefined;
  }
}

/**
 * The slot a request holds, given back once: by the statement that ends the request's work
 * (`deliverStored`, then `releasedByStatement` when it gave it back), or when the response
 * closes (`release`), whichever comes first.
 */
export class HeldSlot {
  private given = false;

  constructor(
    private readonly slots: AccountSlots,
    readonly lease: SlotLease,
  ) {}

  releasedByStatement(): void {
    this.given = true;
    this.slots.forget(this.lease);
  }

  /** Answers whether the slot was given back now (or before), not left to be retried once the store answers. */
  async release(): Promise<boolean> {
    if (this.given) return true;
    this.given = true;
    return this.slots.release(this.lease);
  }
}
