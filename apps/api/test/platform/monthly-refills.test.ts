import { sql } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createPlatform } from "../../src/assembly/platform.ts";
import { MonthlyRefills, nextRefillAt } from "../../src/services/accounts/monthly-refills.ts";
import { plans } from "../../src/services/accounts/plans.ts";
import type { Platform } from "../../src/services/process-services.ts";
import type { Store } from "../../src/store/database.ts";
import { openTestStore } from "../support/store.ts";

let store: Store;
let platform: Platform;
let current: Date;
const now = () => new Date(current);

async function refillRows(accountId: string) {
  return store.query<{ delta: number; balance_after: number; reason: string }>(
    sql`select delta::int as delta, balance_after::int as balance_after, reason from credit_ledger
         where account_id = ${accountId} and kind = 'refill' order by id`,
  );
}

async function setBalance(accountId: string, credits: number) {
  await store.query(sql`update accounts set credits = ${credits} where id = ${accountId}`);
}

describe("monthly plan refills", () => {
  beforeEach(async () => {
    current = new Date("2026-01-31T12:00:00Z");
    store = await openTestStore();
    platform = await createPlatform(store, { now });
  });
  afterEach(async () => {
    platform.slots.close();
    await store.close();
  });

  it("raises a lower balance to the plan's monthly credits at the start of each cycle, once", async () => {
    const { account } = await platform.accounts.create({ plan: "free" });
    const refills = new MonthlyRefills(store, now);
    await setBalance(account.id, 3);
    // January 31 plus a month is February 28, as PostgreSQL adds months.
    expect(account.next_refill_at).toBe("2026-02-28T12:00:00.000Z");
    current = new Date("2026-02-28T11:59:59Z");
    expect(await refills.runDue()).toBe(0);
    current = new Date("2026-02-28T12:00:00Z");
    expect(await refills.runDue()).toBe(1);
    expect(await refills.runDue()).toBe(0);
    expect(await platform.credits.balance(account.id)).toBe(plans.free.monthlyCredits);
    expect(await refillRows(account.id)).toEqual([
      {
        delta: plans.free.monthlyCredits - 3,
        balance_after: plans.free.monthlyCredits,
        reason: "monthly plan credits, cycle 1",
      },
    ]);
    expect((await platform.accounts.show(account.id)).next_refill_at).toBe("2026-03-31T12:00:00.000Z");
  });

  it("leaves a balance above the monthly credits alone, and still records the cycle's refill", async () => {
    const { account } = await platform.accounts.create({ plan: "free" });
    await platform.credits.grant(account.id, 400, "operator grant");
    current = new Date("2026-03-01T00:00:00Z");
    expect(await new MonthlyRefills(store, now).runDue()).toBe(1);
    expect(await platform.credits.balance(account.id)).toBe(plans.free.monthlyCredits + 400);
    expect(await refillRows(account.id)).toEqual([
      { delta: 0, balance_after: plans.free.monthlyCredits + 400, reason: "monthly plan credits, cycle 1" },
    ]);
  });

  it("after months without a worker, refills once, for the current cycle", async () => {
    const { account } = await platform.accounts.create({ plan: "basic" });
    await setBalance(account.id, 0);
    current = new Date("2026-05-15T00:00:00Z");
    expect(await new MonthlyRefills(store, now).runDue()).toBe(1);
    expect(await refillRows(account.id)).toEqual([
      {
        delta: plans.basic.monthlyCredits,
        balance_after: plans.basic.monthlyCredits,
        reason: "monthly plan credits, cycle 3",
      },
    ]);
    expect((await platform.accounts.show(account.id)).next_refill_at).toBe("2026-05-31T12:00:00.000Z");
  });

  it("skips unlimited accounts, which show no next refill", async () => {
    const { account } = await platform.accounts.create({ plan: "scale", credits: null });
    expect(account.next_refill_at).toBeNull();
    current = new Date("2027-01-01T00:00:00Z");
    expect(await new MonthlyRefills(store, now).runDue()).toBe(0);
  });

  it("refills each account once when several workers run at the same moment", async () => {
    const created = await Promise.all(Array.from({ length: 6 }, () => platform.accounts.create({ plan: "free" })));
    for (const { account } of created) await setBalance(account.id, 1);
    current = new Date("2026-03-01T00:00:00Z");
    const counts = await Promise.all(Array.from({ length: 3 }, () => new MonthlyRefills(store, now).runDue()));
    expect(counts.reduce((sum, count) => sum + count, 0)).toBe(6);
    for (const { account } of created) expect(await refillRows(account.id)).toHaveLength(1);
  });
});

describe("nextRefillAt", () => {
  it("adds calendar months in UTC, falling back to the month's last day", () => {
    const created = new Date("2026-01-31T23:30:00Z");
    expect(nextRefillAt(created, 0).toISOString()).toBe("2026-02-28T23:30:00.000Z");
    expect(nextRefillAt(created, 1).toISOString()).toBe("2026-03-31T23:30:00.000Z");
    expect(nextRefillAt(created, 11).toISOString()).toBe("2027-01-31T23:30:00.000Z");
    expect(nextRefillAt(new Date("2027-12-15T00:00:00Z"), 0).toISOString()).toBe("2028-01-15T00:00:00.000Z");
  });
});
