import { createHash } from "node:crypto";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiKeyPattern, generateApiKey, hashApiKey } from "../../src/services/accounts/api-keys.ts";
import { planNames, plans, pollsPerMinute } from "../../src/services/accounts/plans.ts";
import {
  authenticate,
  authenticated,
  expectApiError,
  hour,
  ledgerOf,
  minute,
  openPlatformFixture,
  type PlatformFixture,
  second,
} from "./helpers.ts";

let fixture: PlatformFixture;
beforeAll(async () => {
  fixture = await openPlatformFixture();
});
afterAll(() => fixture.close());

describe("API keys are vb_live_ followed by 32 base62 characters", () => {
  it("issues keys of that shape for new accounts and added keys", async () => {
    const { account, key } = await fixture.account();
    const added = await fixture.platform.accounts.keys.create(account.id);
    expect(key.key).toMatch(/^vb_live_[0-9A-Za-z]{32}$/);
    expect(added.key).toMatch(/^vb_live_[0-9A-Za-z]{32}$/);
    expect(key.key).not.toBe(added.key);
  });

  it("draws every character from the whole base62 alphabet and never repeats a key", () => {
    const keys = Array.from({ length: 500 }, () => generateApiKey());
    for (const key of keys) expect(key).toMatch(apiKeyPattern);
    expect(new Set(keys).size).toBe(keys.length);
    const used = new Set(keys.flatMap((key) => [...key.slice("vb_live_".length)]));
    expect(used.size).toBe(62);
  });

  it("rejects strings of another shape with the published pattern", () => {
    const secret = "a".repeat(32);
    expect(apiKeyPattern.test(`vb_live_${secret}`)).toBe(true);
    expect(apiKeyPattern.test(`vb_live_${secret}a`)).toBe(false);
    expect(apiKeyPattern.test(`vb_live_${secret.slice(1)}`)).toBe(false);
    expect(apiKeyPattern.test(`vb_test_${secret}`)).toBe(false);
    expect(apiKeyPattern.test(`vb_live_${secret.slice(1)}-`)).toBe(false);
  });
});

describe("only the SHA-256 of a key is stored", () => {
  it("stores the hex SHA-256 and no column of the key's row holds the key or its secret part", async () => {
    const { account, key } = await fixture.account();
    const [row] = await fixture.store.query<Record<string, unknown>>(sql`select * from api_keys where id = ${key.id}`);
    expect(row).toBeDefined();
    expect(row?.secret_hash).toBe(createHash("sha256").update(key.key).digest("hex"));
    expect(row?.secret_hash).toBe(hashApiKey(key.key));
    const secret = key.key.slice("vb_live_".length);
    for (const [column, value] of Object.entries(row ?? {})) {
      const text = value instanceof Date ? value.toISOString() : String(value);
      expect(text, `api_keys.${column}`).not.toContain(key.key);
      expect(text, `api_keys.${column}`).not.toContain(secret.slice(0, 8));
      expect(text, `api_keys.${column}`).not.toContain(secret.slice(-8));
    }
    const [accountRow] = await fixture.store.query<Record<string, unknown>>(
      sql`select * from accounts where id = ${account.id}`,
    );
    expect(JSON.stringify(accountRow)).not.toContain(secret.slice(-8));
  });

  it("lists keys by their display prefix only", async () => {
    const { account, key } = await fixture.account();
    const [view] = await fixture.platform.accounts.keys.all(account.id);
    expect(view).toMatchObject({ id: key.id, prefix: `${key.key.slice(0, 12)}…`, state: "active" });
    expect(JSON.stringify(view)).not.toContain(key.key);
  });
});

describe("an account holds several keys, all of the same account", () => {
  it("authenticates each of three keys as the same account with its own key id", async () => {
    const { account, key } = await fixture.account("basic");
    const secondKey = await fixture.platform.accounts.keys.create(account.id);
    const third = await fixture.platform.accounts.keys.create(account.id);
    const now = fixture.clock.now();
    const auths = await Promise.all(
      [key, secondKey, third].map((issued) => authenticated(fixture.platform, issued.key, now)),
    );
    expect(auths.map((auth) => auth.accountId)).toEqual([account.id, account.id, account.id]);
    expect(auths.map((auth) => auth.keyId)).toEqual([key.id, secondKey.id, third.id]);
    expect(auths.every((auth) => auth.plan === "basic" && auth.admitted)).toBe(true);
    expect((await fixture.platform.accounts.keys.all(account.id)).map((view) => view.id).sort()).toEqual(
      [key.id, secondKey.id, third.id].sort(),
    );
  });
});

describe("a revoked key is refused from the next authentication on", () => {
  it("answers null for the revoked key at the instant of revocation while the other keys still work", async () => {
    const { account, key } = await fixture.account();
    const other = await fixture.platform.accounts.keys.create(account.id);
    expect(await authenticate(fixture.platform, key.key, fixture.clock.now())).not.toBeNull();

    const revoked = await fixture.platform.accounts.keys.revoke(key.id);
    expect(revoked.state).toBe("revoked");
    expect(await authenticate(fixture.platform, key.key, fixture.clock.now())).toBeNull();
    expect(await authenticate(fixture.platform, key.key, new Date(fixture.clock.now().getTime() + hour))).toBeNull();
    expect(await authenticate(fixture.platform, key.key, fixture.clock.now(), "poll")).toBeNull();
    expect(await authenticate(fixture.platform, other.key, fixture.clock.now())).not.toBeNull();
  });

  it("answers null for a key that was never issued", async () => {
    expect(await authenticate(fixture.platform, generateApiKey(), fixture.clock.now())).toBeNull();
    expect(await fixture.platform.authenticator.authenticate("", "request", fixture.clock.now())).toBeNull();
  });

  it("keeps the earlier revocation when a key is revoked again later", async () => {
    const { key } = await fixture.account();
    const first = await fixture.platform.accounts.keys.revoke(key.id);
    fixture.clock.advance(minute);
    const again = await fixture.platform.accounts.keys.revoke(key.id);
    expect(again.revoked_at).toBe(first.revoked_at);
  });
});

describe("rotation issues a new key and revokes the old one, at once or after a grace period", () => {
  it("revokes the old key immediately without a grace period", async () => {
    const { account, key } = await fixture.account();
    const { issued, revoked } = await fixture.platform.accounts.keys.rotate(key.id);
    const now = fixture.clock.now();
    expect(issued.key).toMatch(apiKeyPattern);
    expect(issued.key).not.toBe(key.key);
    expect(revoked).toMatchObject({ id: key.id, state: "revoked", revoked_at: now.toISOString() });
    expect(await authenticate(fixture.platform, key.key, now)).toBeNull();
    expect(await authenticated(fixture.platform, issued.key, now)).toMatchObject({
      accountId: account.id,
      keyId: issued.id,
    });
  });

  it("keeps the old key working until the grace period ends, then refuses it", async () => {
    const { account, key } = await fixture.account();
    const rotatedAt = fixture.clock.now();
    const { issued, revoked } = await fixture.platform.accounts.keys.rotate(key.id, 3600);
    expect(revoked.state).toBe("revoking");
    expect(revoked.revoked_at).toBe(new Date(rotatedAt.getTime() + hour).toISOString());

    const at = (offset: number) => new Date(rotatedAt.getTime() + offset);
    expect(await authenticate(fixture.platform, key.key, at(0))).toMatchObject({ accountId: account.id });
    expect(await authenticate(fixture.platform, key.key, at(hour - 1))).toMatchObject({ accountId: account.id });
    expect(await authenticate(fixture.platform, key.key, at(hour))).toBeNull();
    expect(await authenticate(fixture.platform, key.key, at(hour + 1))).toBeNull();
    expect(await authenticate(fixture.platform, issued.key, at(hour + 1))).toMatchObject({ keyId: issued.id });

    fixture.clock.set(at(hour));
    const [old] = (await fixture.platform.accounts.keys.all(account.id)).filter((view) => view.id === key.id);
    expect(old?.state).toBe("revoked");
  });

  it("carries the old key's lower limit over to the new key", async () => {
    const { account } = await fixture.account("basic");
    const limited = await fixture.platform.accounts.keys.create(account.id, 7);
    const { issued } = await fixture.platform.accounts.keys.rotate(limited.id);
    expect(issued.requests_per_minute).toBe(7);
    expect((await authenticated(fixture.platform, issued.key, fixture.clock.now())).allowance.limit).toBe(7);
  });

  it("refuses to rotate a key that is already revoked", async () => {
    const { key } = await fixture.account();
    await fixture.platform.accounts.keys.revoke(key.id);
    await expectApiError(fixture.platform.accounts.keys.rotate(key.id), "not_found", 404);
  });
});

describe("a key may carry a requests-per-minute limit lower than the plan's", () => {
  it("reports the key's limit for a limited key and the plan's for the others, and clears it with null", async () => {
    const { account, key } = await fixture.account("pro");
    const limited = await fixture.platform.accounts.keys.create(account.id, 5);
    expect(limited.requests_per_minute).toBe(5);
    const now = fixture.clock.now();
    expect((await authenticated(fixture.platform, limited.key, now)).allowance).toMatchObject({
      limit: 5,
      remaining: 4,
    });
    expect((await authenticated(fixture.platform, key.key, now)).allowance).toMatchObject({
      limit: 300,
      remaining: 298,
    });

    const cleared = await fixture.platform.accounts.keys.setLimit(limited.id, null);
    expect(cleared.requests_per_minute).toBeNull();
    expect((await authenticated(fixture.platform, limited.key, now)).allowance).toMatchObject({
      limit: 300,
      remaining: 297,
    });
    const set = await fixture.platform.accounts.keys.setLimit(key.id, 2);
    expect(set.requests_per_minute).toBe(2);
    expect((await authenticated(fixture.platform, key.key, now)).allowance.limit).toBe(2);
  });
});

describe("plans: monthly credits and the limits of docs/decisions.md rule 5", () => {
  const expected = {
    free: { credits: 100, rpm: 10, slots: 2, workers: 2 },
    basic: { credits: 1_000, rpm: 60, slots: 2, workers: 2 },
    pro: { credits: 10_000, rpm: 300, slots: 3, workers: 3 },
    mega: { credits: 50_000, rpm: 900, slots: 10, workers: 4 },
    scale: { credits: 300_000, rpm: 900, slots: 10, workers: 4 },
  } as const;

  it("defines exactly the five plans of docs/decisions.md rule 5 with their limits", () => {
    expect([...planNames]).toEqual(["free", "basic", "pro", "mega", "scale"]);
    for (const name of planNames) {
      const plan = plans[name];
      const want = expected[name];
      expect(
        {
          credits: plan.monthlyCredits,
          rpm: plan.requestsPerMinute,
          slots: plan.extractionSlots,
          workers: plan.batchWorkers,
        },
        name,
      ).toEqual(want);
    }
  });

  it("writes the plan table into the database where the SQL functions read it", async () => {
    const rows = await fixture.store.query<{
      name: string;
      requests_per_minute: number;
      polls_per_minute: number;
      extraction_slots: number;
      batch_workers: number;
      monthly_credits: number;
    }>(sql`select * from plans order by monthly_credits`);
    expect(
      rows.map((row) => [
        row.name,
        row.monthly_credits,
        row.requests_per_minute,
        row.extraction_slots,
        row.batch_workers,
        row.polls_per_minute,
      ]),
    ).toEqual([
      ["free", 100, 10, 2, 2, 120],
      ["basic", 1_000, 60, 2, 2, 120],
      ["pro", 10_000, 300, 3, 3, 600],
      ["mega", 50_000, 900, 10, 4, 1_800],
      ["scale", 300_000, 900, 10, 4, 1_800],
    ]);
  });

  it("opens each new account with its plan's monthly credits, recorded as a grant in the ledger", async () => {
    for (const name of planNames) {
      const { account } = await fixture.account(name);
      expect(account.credits, name).toBe(expected[name].credits);
      expect(await fixture.platform.credits.balance(account.id)).toBe(expected[name].credits);
      expect(await ledgerOf(fixture.store, account.id)).toEqual([
        {
          delta: expected[name].credits,
          balance_after: expected[name].credits,
          kind: "grant",
          operation: null,
          request_id: null,
          reason: "opening balance",
        },
      ]);
    }
  });

  it("admits each plan's requests per minute and twice that (at least 120) in polls", async () => {
    const now = fixture.clock.now();
    for (const name of planNames) {
      const { key } = await fixture.account(name);
      const request = await authenticated(fixture.platform, key.key, now);
      const poll = await authenticated(fixture.platform, key.key, now, "poll");
      expect(request.allowance.limit, name).toBe(expected[name].rpm);
      expect(poll.allowance.limit, name).toBe(Math.max(2 * expected[name].rpm, 120));
      expect(pollsPerMinute(plans[name])).toBe(Math.max(2 * expected[name].rpm, 120));
    }
  });

  it("opens an account with an explicit balance, zero, or unlimited (null) credits", async () => {
    expect((await fixture.account("free", 7)).account.credits).toBe(7);
    const empty = await fixture.account("free", 0);
    expect(empty.account.credits).toBe(0);
    expect(await ledgerOf(fixture.store, empty.account.id)).toEqual([]);
    expect((await fixture.account("scale", null)).account.credits).toBeNull();
    await expectApiError(fixture.account("free", -1), "invalid_request", 400);
    await expectApiError(fixture.account("free", 1.5), "invalid_request", 400);
  });

  it("applies a new plan's limit to the account's existing keys", async () => {
    const { account, key } = await fixture.account("free");
    await fixture.platform.accounts.setPlan(account.id, "pro");
    const auth = await authenticated(fixture.platform, key.key, new Date(fixture.clock.now().getTime() + second));
    expect(auth).toMatchObject({ plan: "pro", allowance: { limit: 300 } });
  });
});
