import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChargeRequest } from "../../src/services/accounts/credits.ts";
import { pricing } from "../../src/services/accounts/pricing.ts";
import type { DatabaseOrTransaction } from "../../src/store/database.ts";
import { type Debit, debitSteps } from "../../src/store/statements/debit.ts";
import { expectApiError, ledgerOf, openPlatformFixture, type PlatformFixture } from "./helpers.ts";

let fixture: PlatformFixture;
beforeAll(async () => {
  fixture = await openPlatformFixture();
});
afterAll(() => fixture.close());

const charge = (accountId: string, credits: number, requestId = "req_test"): ChargeRequest => ({
  accountId,
  credits,
  operation: "POST /api/v2/transcripts/video",
  requestId,
});

describe("a charge debits the balance and appends a ledger row with the balance after it", () => {
  it("takes 3 of 10 credits and records delta -3, balance_after 7, the operation and the request id", async () => {
    const { account } = await fixture.account("free", 10);
    expect(await fixture.platform.credits.charge(charge(account.id, 3, "req_one"))).toBe(7);
    expect(await fixture.platform.credits.balance(account.id)).toBe(7);
    expect(await ledgerOf(fixture.store, account.id)).toEqual([
      { delta: 10, balance_after: 10, kind: "grant", operation: null, request_id: null, reason: "opening balance" },
      {
        delta: -3,
        balance_after: 7,
        kind: "charge",
        operation: "POST /api/v2/transcripts/video",
        request_id: "req_one",
        reason: null,
      },
    ]);
  });

  it("keeps the ledger consistent with the balance over several charges", async () => {
    const { account } = await fixture.account("free", 20);
    for (const credits of [1, 4, 2, 5]) await fixture.platform.credits.charge(charge(account.id, credits));
    const ledger = await ledgerOf(fixture.store, account.id);
    expect(ledger.map((row) => row.balance_after)).toEqual([20, 19, 15, 13, 8]);
    expect(ledger.reduce((sum, row) => sum + row.delta, 0)).toBe(8);
    expect(await fixture.platform.credits.balance(account.id)).toBe(8);
  });
});

describe("a balance never goes negative", () => {
  it("charges the exact balance down to 0 and refuses the next credit", async () => {
    const { account } = await fixture.account("free", 5);
    expect(await fixture.platform.credits.charge(charge(account.id, 5))).toBe(0);
    await expectApiError(fixture.platform.credits.charge(charge(account.id, 1)), "insufficient_credits", 402);
    expect(await fixture.platform.credits.balance(account.id)).toBe(0);
  });

  it("refuses a negative balance in the database itself", async () => {
    const { account } = await fixture.account("free", 1);
    const error = await fixture.store.query(sql`update accounts set credits = -1 where id = ${account.id}`).then(
      () => null,
      (reason: unknown) => reason,
    );
    expect(causeMessages(error)).toContain("accounts_credits_never_negative");
    expect(await fixture.platform.credits.balance(account.id)).toBe(1);
  });
});

describe("a 0-credit charge writes nothing", () => {
  it("answers the balance and appends no ledger row", async () => {
    const { account } = await fixture.account("free", 4);
    const before = await ledgerOf(fixture.store, account.id);
    expect(await fixture.platform.credits.charge(charge(account.id, 0))).toBe(4);
    expect(await ledgerOf(fixture.store, account.id)).toEqual(before);
    const empty = await fixture.account("free", 0);
    expect(await fixture.platform.credits.charge(charge(empty.account.id, 0))).toBe(0);
    expect(await ledgerOf(fixture.store, empty.account.id)).toEqual([]);
  });

  it("refuses negative or fractional charges as a programming error", async () => {
    const { account } = await fixture.account("free", 4);
    await expect(fixture.platform.credits.charge(charge(account.id, -1))).rejects.toThrow(TypeError);
    await expect(fixture.platform.credits.charge(charge(account.id, 0.5))).rejects.toThrow(TypeError);
    expect(await fixture.platform.credits.balance(account.id)).toBe(4);
  });
});

describe("an insufficient balance is a 402 and charges nothing", () => {
  it("refuses a 3-credit charge on a balance of 2, leaving balance and ledger unchanged", async () => {
    const { account } = await fixture.account("free", 2);
    const before = await ledgerOf(fixture.store, account.id);
    const error = await expectApiError(
      fixture.platform.credits.charge(charge(account.id, 3)),
      "insufficient_credits",
      402,
    );
    expect(error.number).toBe(2001);
    expect(await fixture.platform.credits.balance(account.id)).toBe(2);
    expect(await ledgerOf(fixture.store, account.id)).toEqual(before);
  });

  it("refuses up front, before any work, when the balance cannot pay the minimum", async () => {
    await expectApiError(
      Promise.resolve().then(() => fixture.platform.credits.requireAtLeast(0, pricing.minimum())),
      "insufficient_credits",
      402,
    );
    expect(() => fixture.platform.credits.requireAtLeast(1, pricing.minimum())).not.toThrow();
    expect(() => fixture.platform.credits.requireAtLeast(null, pricing.minimum())).not.toThrow();
  });

  it("answers not_found for an account that does not exist", async () => {
    await expectApiError(fixture.platform.credits.charge(charge("acct_missing", 1)), "not_found", 404);
  });
});

describe("a read charged in the same statement (a store hit)", () => {
  /** A statement that reads `value` (no row for `null`) and charges for it, as `deliverStored` does. */
  const readAndCharge = (value: string | null) => async (db: DatabaseOrTransaction, debit: Debit) => {
    const found =
      value === null ? sql`select 'never'::text as answer where false` : sql`select ${value}::text as answer`;
    const result = await db.execute(sql`
      with found as (${found}), ${debitSteps(debit, sql`exists (select 1 from found)`)}
      select found.answer, exists (select 1 from charged) as charged, (select balance_after from charged) as balance
        from found`);
    const [row] = (result as unknown as { rows: { answer: string; charged: boolean; balance: number | null }[] }).rows;
    return row ?? null;
  };

  it("answers the statement's result and the balance after charging for it, with one ledger row", async () => {
    const { account } = await fixture.account("free", 5);
    const result = await fixture.platform.credits.chargeWithin(
      charge(account.id, 1, "req_hit"),
      readAndCharge("stored"),
    );
    expect(result).toEqual({ answer: "stored", charged: true, balance: 4 });
    const ledger = await ledgerOf(fixture.store, account.id);
    expect(ledger.at(-1)).toMatchObject({ delta: -1, balance_after: 4, kind: "charge", request_id: "req_hit" });
  });

  it("charges nothing when the read finds no row", async () => {
    const { account } = await fixture.account("free", 5);
    const before = await ledgerOf(fixture.store, account.id);
    expect(await fixture.platform.credits.chargeWithin(charge(account.id, 1), readAndCharge(null))).toBeNull();
    expect(await fixture.platform.credits.balance(account.id)).toBe(5);
    expect(await ledgerOf(fixture.store, account.id)).toEqual(before);
  });

  it("refuses with 402 and charges nothing when the balance cannot pay for the row found", async () => {
    const { account } = await fixture.account("free", 1);
    await expectApiError(
      fixture.platform.credits.chargeWithin(charge(account.id, 2), readAndCharge("stored")),
      "insufficient_credits",
      402,
    );
    expect(await fixture.platform.credits.balance(account.id)).toBe(1);
  });

  it("charges unlimited accounts without a balance", async () => {
    const { account } = await fixture.account("scale", null);
    expect(await fixture.platform.credits.chargeWithin(charge(account.id, 1), readAndCharge("stored"))).toEqual({
      answer: "stored",
      charged: true,
      balance: null,
    });
  });
});

describe("a grant adds credits and is recorded", () => {
  it("adds 5 credits with a grant row, after which a refused charge goes through", async () => {
    const { account } = await fixture.account("free", 0);
    await expectApiError(fixture.platform.credits.charge(charge(account.id, 3)), "insufficient_credits", 402);
    expect(await fixture.platform.credits.grant(account.id, 5, "top-up")).toBe(5);
    expect(await fixture.platform.credits.charge(charge(account.id, 3))).toBe(2);
    expect((await ledgerOf(fixture.store, account.id)).map((row) => [row.kind, row.delta, row.balance_after])).toEqual([
      ["grant", 5, 5],
      ["charge", -3, 2],
    ]);
    expect((await ledgerOf(fixture.store, account.id))[0]?.reason).toBe("top-up");
  });

  it("refuses grants to unlimited accounts and grants that are not positive whole numbers", async () => {
    const unlimited = await fixture.account("scale", null);
    await expectApiError(fixture.platform.credits.grant(unlimited.account.id, 5, "top-up"), "not_found", 404);
    const { account } = await fixture.account("free", 1);
    await expect(fixture.platform.credits.grant(account.id, 0, "nothing")).rejects.toThrow(TypeError);
    await expect(fixture.platform.credits.grant(account.id, 2.5, "half")).rejects.toThrow(TypeError);
    expect(await fixture.platform.credits.balance(account.id)).toBe(1);
  });
});

describe("unlimited accounts (credits null) are charged without a balance", () => {
  it("charges any amount, answers a null balance and still records the charge", async () => {
    const { account } = await fixture.account("scale", null);
    expect(await fixture.platform.credits.charge(charge(account.id, 1_000_000))).toBeNull();
    expect(await fixture.platform.credits.charge(charge(account.id, 1))).toBeNull();
    expect(await fixture.platform.credits.balance(account.id)).toBeNull();
    expect((await ledgerOf(fixture.store, account.id)).map((row) => [row.kind, row.delta, row.balance_after])).toEqual([
      ["charge", -1_000_000, null],
      ["charge", -1, null],
    ]);
  });
});

describe("pricing: what each billed outcome costs", () => {
  it("charges 1 credit for a caption transcript", () => {
    expect(pricing.captions()).toBe(1);
  });

  it("charges a list page with rows 1 credit and an empty page nothing", () => {
    expect(pricing.listPage(1, false)).toBe(1);
    expect(pricing.listPage(5, false)).toBe(1);
    expect(pricing.listPage(50, false)).toBe(1);
    expect(pricing.listPage(0, false)).toBe(0);
  });

  it("charges any since_video_id request 1 credit, even when the page is empty", () => {
    expect(pricing.listPage(0, true)).toBe(1);
    expect(pricing.listPage(3, true)).toBe(1);
    expect(pricing.listPage(50, true)).toBe(1);
  });

  it("charges speech recognition 1 credit per started minute, at least 1", () => {
    const cases: Array<[number, number]> = [
      [0, 1],
      [0.5, 1],
      [1, 1],
      [59, 1],
      [60, 1],
      [60.001, 2],
      [61, 2],
      [120, 2],
      [121, 3],
      [3599, 60],
      [3600, 60],
      [4 * 3600, 240],
    ];
    for (const [seconds, credits] of cases) expect(pricing.speechRecognition(seconds), `${seconds} s`).toBe(credits);
  });

  it("requires at least 1 credit before any billed work", () => {
    expect(pricing.minimum()).toBe(1);
  });
});

/** The messages of an error and its causes, joined: drivers wrap the database's error. */
function causeMessages(error: unknown): string {
  const messages: string[] = [];
  for (let current = error, depth = 0; current instanceof Error && depth < 5; depth++) {
    messages.push(current.message);
    current = current.cause;
  }
  return messages.join(" <- ");
}
