import { sql } from "drizzle-orm";
import { newId } from "../ids.ts";
import type { Store } from "../store/database.ts";

/**
 * Which of an account's limits a slot counts against: `extraction`, the requests it runs at once
 * (spec 8.4); `transcription`, its jobs running at once on every worker (the plan's workers).
 */
export type SlotPool = "extraction" | "transcription";

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
    const id = newId("slot");
    const [row] = await this.store.query<{ acquired: boolean }>(
      sql`select acquired from verbatim_acquire_slot(${id}, ${accountId}, ${this.options.pool}, ${slots}, ${this.options.holder},
            ${this.options.now().toISOString()}::timestamptz, ${this.options.leaseSeconds})`,
    );
    if (!row?.acquired) return null;
    this.held.add(id);
    this.scheduleRenewal();
    return { id, accountId };
  }

  /** Gives the slot back. Releasing twice is harmless. */
  async release(lease: SlotLease): Promise<void> {
    this.held.delete(lease.id);
    await this.store.query(sql`delete from slot_leases where id = ${lease.id}`);
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
