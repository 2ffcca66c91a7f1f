import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { plans } from "../../src/services/accounts/plans.ts";
import { AccountSlots, type SlotLease } from "../../src/services/accounts/slots.ts";
import { openPlatformFixture, type PlatformFixture, second, times } from "./helpers.ts";

/** Long enough that the real-time renewal timer (a third of it) never fires during this file. */
const leaseSeconds = 600;

let fixture: PlatformFixture;
beforeAll(async () => {
  fixture = await openPlatformFixture({ slotLeaseSeconds: leaseSeconds });
});
afterAll(() => fixture.close());

/** Acquires `count` slots one after another, answering each lease or null. */
async function acquire(slots: AccountSlots, accountId: string, limit: number, count: number) {
  const leases: Array<SlotLease | null> = [];
  for (let index = 0; index < count; index++) leases.push(await slots.acquire(accountId, limit));
  return leases;
}

/** Another API process on the same database: its own holder, the same clock. */
function otherProcess(holder: string): AccountSlots {
  return new AccountSlots(fixture.store, { pool: "extraction", holder, leaseSeconds, now: fixture.clock.now });
}

describe("an account holds at most its plan's extraction slots at once", () => {
  it("grants a pro account 3 slots and refuses the 4th", async () => {
    const { account } = await fixture.account("pro");
    const limit = plans.pro.extractionSlots;
    const leases = await acquire(fixture.platform.slots, account.id, limit, limit + 1);
    expect(leases.map((lease) => lease !== null)).toEqual([true, true, true, false]);
    expect(await fixture.platform.slots.inUse(account.id)).toBe(3);
    for (const lease of leases) if (lease) await fixture.platform.slots.release(lease);
  });

  it("grants a mega account 10 slots and a free account 2", async () => {
    const mega = await fixture.account("mega");
    const free = await fixture.account("free");
    const megaLeases = await acquire(fixture.platform.slots, mega.account.id, plans.mega.extractionSlots, 11);
    const freeLeases = await acquire(fixture.platform.slots, free.account.id, plans.free.extractionSlots, 3);
    expect(megaLeases.filter((lease) => lease !== null)).toHaveLength(10);
    expect(freeLeases.filter((lease) => lease !== null)).toHaveLength(2);
    for (const lease of [...megaLeases, ...freeLeases]) if (lease) await fixture.platform.slots.release(lease);
  });

  it("counts the slots of every process on the account together", async () => {
    const { account } = await fixture.account("free");
    const other = otherProcess("other-host:1");
    expect(await fixture.platform.slots.acquire(account.id, 2)).not.toBeNull();
    expect(await other.acquire(account.id, 2)).not.toBeNull();
    expect(await other.acquire(account.id, 2)).toBeNull();
    expect(await fixture.platform.slots.acquire(account.id, 2)).toBeNull();
    expect(await fixture.platform.slots.inUse(account.id)).toBe(2);
    other.close();
  });

  it("keeps the slots of two accounts apart", async () => {
    const first = await fixture.account("free");
    const other = await fixture.account("free");
    expect(await acquire(fixture.platform.slots, first.account.id, 2, 2)).not.toContain(null);
    expect(await fixture.platform.slots.inUse(other.account.id)).toBe(0);
    expect(await acquire(fixture.platform.slots, other.account.id, 2, 2)).not.toContain(null);
  });

  it("never grants more slots than the limit to parallel acquisitions", async () => {
    for (const round of times(10)) {
      const { account } = await fixture.account("pro");
      const leases = await Promise.all(times(30).map(() => fixture.platform.slots.acquire(account.id, 3)));
      expect(
        leases.filter((lease) => lease !== null),
        `round ${round}`,
      ).toHaveLength(3);
      expect(await fixture.platform.slots.inUse(account.id)).toBe(3);
    }
  });
});

describe("releasing a slot frees it for the next request", () => {
  it("frees exactly one slot per release, and a second release of the same lease changes nothing", async () => {
    const { account } = await fixture.account("free");
    const [first, secondLease] = await acquire(fixture.platform.slots, account.id, 2, 2);
    if (!first || !secondLease) throw new Error("both slots should have been granted");
    expect(await fixture.platform.slots.acquire(account.id, 2)).toBeNull();

    await fixture.platform.slots.release(first);
    expect(await fixture.platform.slots.inUse(account.id)).toBe(1);
    const third = await fixture.platform.slots.acquire(account.id, 2);
    expect(third).not.toBeNull();
    expect(await fixture.platform.slots.inUse(account.id)).toBe(2);

    await fixture.platform.slots.release(first);
    expect(await fixture.platform.slots.inUse(account.id)).toBe(2);
    expect(await fixture.platform.slots.acquire(account.id, 2)).toBeNull();
  });

  it("reports no slot in use for an account that never took one", async () => {
    const { account } = await fixture.account("free");
    expect(await fixture.platform.slots.inUse(account.id)).toBe(0);
  });
});

describe("a lease that is not renewed expires after the lease time and frees its slot", () => {
  it("keeps both slots busy until the lease time has passed, then frees them", async () => {
    const { account } = await fixture.account("free");
    const slots = otherProcess("dead-host:1");
    const start = fixture.clock.now();
    expect(await acquire(slots, account.id, 2, 2)).not.toContain(null);
    slots.close(); // The process dies: nobody renews its leases.

    fixture.clock.set(new Date(start.getTime() + leaseSeconds * second - 1));
    expect(await fixture.platform.slots.inUse(account.id)).toBe(2);
    expect(await fixture.platform.slots.acquire(account.id, 2)).toBeNull();

    fixture.clock.set(new Date(start.getTime() + leaseSeconds * second));
    expect(await fixture.platform.slots.inUse(account.id)).toBe(0);
    const taken = await acquire(fixture.platform.slots, account.id, 2, 3);
    expect(taken.map((lease) => lease !== null)).toEqual([true, true, false]);
    for (const lease of taken) if (lease) await fixture.platform.slots.release(lease);
    fixture.clock.set(start);
  });
});

describe("renewing extends every lease of the renewing process", () => {
  it("keeps a renewed lease busy past its first expiry, until a lease time after the renewal", async () => {
    const { account } = await fixture.account("free");
    const live = otherProcess("live-host:1");
    const start = fixture.clock.now();
    expect(await acquire(live, account.id, 2, 2)).not.toContain(null);

    fixture.clock.set(new Date(start.getTime() + 400 * second));
    await live.renew();
    fixture.clock.set(new Date(start.getTime() + leaseSeconds * second));
    expect(await live.inUse(account.id)).toBe(2);
    expect(await fixture.platform.slots.acquire(account.id, 2)).toBeNull();

    fixture.clock.set(new Date(start.getTime() + (400 + leaseSeconds) * second - 1));
    expect(await live.inUse(account.id)).toBe(2);
    fixture.clock.set(new Date(start.getTime() + (400 + leaseSeconds) * second));
    expect(await live.inUse(account.id)).toBe(0);
    live.close();
    fixture.clock.set(start);
  });

  it("renews only the renewing process's leases, not another's", async () => {
    const { account } = await fixture.account("pro");
    const live = otherProcess("live-host:2");
    const dead = otherProcess("dead-host:2");
    const start = fixture.clock.now();
    expect(await live.acquire(account.id, 3)).not.toBeNull();
    expect(await dead.acquire(account.id, 3)).not.toBeNull();
    dead.close();

    fixture.clock.set(new Date(start.getTime() + 300 * second));
    await live.renew();
    fixture.clock.set(new Date(start.getTime() + leaseSeconds * second));
    expect(await live.inUse(account.id)).toBe(1);
    live.close();
    fixture.clock.set(start);
  });
});
