import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateApiKey } from "../../src/services/accounts/api-keys.ts";
import type { Allowance, Authentication } from "../../src/services/accounts/authenticator.ts";
import {
  authenticate,
  authenticated,
  minute,
  openPlatformFixture,
  type PlatformFixture,
  second,
  times,
  windowSize,
} from "./helpers.ts";

let fixture: PlatformFixture;
beforeAll(async () => {
  fixture = await openPlatformFixture();
});
afterAll(() => fixture.close());

/** Half past a minute, so a fixed-minute window would reset 30 s after it, a sliding one 60 s after. */
const t0 = new Date("2026-03-02T10:00:30.000Z");
const at = (offset: number) => new Date(t0.getTime() + offset);

/** Authenticates `count` times one after another at `when`, answering each result. */
async function hits(
  key: string,
  when: Date,
  count: number,
  allowance: Allowance = "request",
): Promise<Authentication[]> {
  const results: Authentication[] = [];
  for (let index = 0; index < count; index++) {
    results.push(await authenticated(fixture.platform, key, when, allowance));
  }
  return results;
}

const admittedCount = (results: Authentication[]) => results.filter((result) => result.admitted).length;

describe("an account admits exactly its plan's requests per minute", () => {
  it("admits 10 requests of a free account, counting remaining down, then refuses the 11th", async () => {
    const { key } = await fixture.account("free");
    const results = await hits(key.key, t0, 11);
    expect(results.map((result) => result.admitted)).toEqual([...times(10).map(() => true), false]);
    expect(results.map((result) => result.allowance.remaining)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 0]);
    expect(results.every((result) => result.allowance.limit === 10)).toBe(true);
    expect(results.every((result) => result.allowance.resetAt.getTime() === at(minute).getTime())).toBe(true);
  });

  it("admits 60 requests of a basic account and refuses the 61st", async () => {
    const { key } = await fixture.account("basic");
    const results = await hits(key.key, t0, 61);
    expect(admittedCount(results)).toBe(60);
    expect(results.at(-1)?.admitted).toBe(false);
  });
});

describe("the window slides: a request frees its place exactly 60 seconds after it was admitted", () => {
  it("frees the places of requests admitted at t0 at t0+60s, not at the next minute boundary", async () => {
    const { key } = await fixture.account("free");
    expect(admittedCount(await hits(key.key, at(0), 5))).toBe(5);
    expect(admittedCount(await hits(key.key, at(20 * second), 5))).toBe(5);

    // 10:01:00 is a minute boundary; a fixed window would admit again here.
    const boundary = await authenticated(fixture.platform, key.key, at(30 * second));
    expect(boundary).toMatchObject({ admitted: false, allowance: { remaining: 0, resetAt: at(minute) } });
    expect((await authenticated(fixture.platform, key.key, at(minute - 1))).admitted).toBe(false);

    // At t0+60s exactly the five requests of t0 leave the window, and only they.
    const freed = await hits(key.key, at(minute), 6);
    expect(freed.map((result) => result.admitted)).toEqual([true, true, true, true, true, false]);
    expect(freed.at(-1)?.allowance.resetAt).toEqual(at(20 * second + minute));

    expect((await authenticated(fixture.platform, key.key, at(20 * second + minute - 1))).admitted).toBe(false);
    expect(admittedCount(await hits(key.key, at(20 * second + minute), 6))).toBe(5);
  });

  it("reports the reset as the moment the oldest counted request leaves the window", async () => {
    const { key } = await fixture.account("free");
    const first = await authenticated(fixture.platform, key.key, at(0));
    expect(first.allowance.resetAt).toEqual(at(minute));
    const later = await authenticated(fixture.platform, key.key, at(45 * second));
    expect(later.allowance).toMatchObject({ remaining: 8, resetAt: at(minute) });
    const afterFirstLeft = await authenticated(fixture.platform, key.key, at(minute + 1));
    expect(afterFirstLeft.allowance).toMatchObject({ remaining: 8, resetAt: at(45 * second + minute) });
  });
});

describe("the window in one-second buckets: never more than the limit in any 60 seconds", () => {
  it("counts the requests of one second until the last of them is 60 s old, and says so in the reset", async () => {
    const { key } = await fixture.account("free");
    expect(admittedCount(await hits(key.key, at(200), 5))).toBe(5);
    expect(admittedCount(await hits(key.key, at(900), 5))).toBe(5);
    // An exact window would free the first five here; the bucket frees all ten at 900 ms, never before.
    const early = await authenticated(fixture.platform, key.key, at(minute + 500));
    expect(early).toMatchObject({ admitted: false, allowance: { remaining: 0, resetAt: at(minute + 900) } });
    expect((await authenticated(fixture.platform, key.key, at(minute + 899))).admitted).toBe(false);
    expect(admittedCount(await hits(key.key, at(minute + 900), 11))).toBe(10);
  });

  it("keeps a second 61 seconds later apart from the bucket it reuses", async () => {
    const { key } = await fixture.account("free");
    expect(admittedCount(await hits(key.key, at(0), 4))).toBe(4);
    // 61 s later the same bucket starts again at one: the four of t0 left the window at t0+60s.
    const reused = await hits(key.key, at(61 * second), 11);
    expect(admittedCount(reused)).toBe(10);
    expect(reused[0]?.allowance).toMatchObject({ remaining: 9, resetAt: at(61 * second + minute) });
  });

  it("admits at most the limit in any 60 s, and refuses only while the last 61 s hold the limit", async () => {
    const limit = 10;
    const spacing = fc.integer({ min: 0, max: 9_000 });
    await fc.assert(
      fc.asyncProperty(fc.array(spacing, { minLength: 1, maxLength: 40 }), async (gaps) => {
        const { key } = await fixture.account("free");
        let time = t0.getTime() + 5 * minute;
        const admitted: number[] = [];
        for (const gap of gaps) {
          time += gap;
          const result = await authenticated(fixture.platform, key.key, new Date(time));
          const inLast = (span: number) => admitted.filter((hit) => hit > time - span).length;
          if (result.admitted) {
            expect(inLast(minute)).toBeLessThan(limit);
            admitted.push(time);
          } else {
            expect(inLast(minute + second)).toBe(limit);
          }
        }
      }),
      { numRuns: 12 },
    );
  });
});

describe("refused requests are not counted", () => {
  it("frees the whole window 60 s after the admitted requests however many were refused meanwhile", async () => {
    const { key } = await fixture.account("free");
    expect(admittedCount(await hits(key.key, at(0), 10))).toBe(10);
    expect(admittedCount(await hits(key.key, at(30 * second), 20))).toBe(0);
    expect(admittedCount(await hits(key.key, at(59 * second), 5))).toBe(0);
    const afterWindow = await hits(key.key, at(minute), 11);
    expect(admittedCount(afterWindow)).toBe(10);
    expect(await windowSize(fixture.store, `request:${afterWindow[0]?.accountId}`, at(minute))).toBe(10);
  });
});

describe("the allowance is shared by every key of the account", () => {
  it("admits 10 requests in total across three keys of a free account", async () => {
    const { account, key } = await fixture.account("free");
    const keys = [
      key.key,
      (await fixture.platform.accounts.keys.create(account.id)).key,
      (await fixture.platform.accounts.keys.create(account.id)).key,
    ];
    const results: Authentication[] = [];
    for (const index of times(15)) {
      results.push(await authenticated(fixture.platform, keys[index % 3] as string, at(index)));
    }
    expect(admittedCount(results)).toBe(10);
    expect(results.slice(10).every((result) => !result.admitted)).toBe(true);
  });

  it("gives a key created after the allowance is used up no capacity of its own", async () => {
    const { account, key } = await fixture.account("free");
    expect(admittedCount(await hits(key.key, at(0), 10))).toBe(10);
    const fresh = await fixture.platform.accounts.keys.create(account.id);
    const result = await authenticated(fixture.platform, fresh.key, at(second));
    expect(result).toMatchObject({ admitted: false, allowance: { limit: 10, remaining: 0, resetAt: at(minute) } });
  });

  it("keeps the allowances of two accounts apart", async () => {
    const first = await fixture.account("free");
    const other = await fixture.account("free");
    expect(admittedCount(await hits(first.key.key, at(0), 11))).toBe(10);
    expect(admittedCount(await hits(other.key.key, at(0), 11))).toBe(10);
  });
});

describe("a key's lower limit also applies, and the headers describe the more restrictive allowance", () => {
  it("refuses a key limited to 3 after 3 requests and reports the key's limit, remaining and reset", async () => {
    const { account } = await fixture.account("free");
    const limited = await fixture.platform.accounts.keys.create(account.id, 3);
    const results = [
      await authenticated(fixture.platform, limited.key, at(0)),
      await authenticated(fixture.platform, limited.key, at(10 * second)),
      await authenticated(fixture.platform, limited.key, at(20 * second)),
      await authenticated(fixture.platform, limited.key, at(30 * second)),
    ];
    expect(results.map((result) => result.admitted)).toEqual([true, true, true, false]);
    expect(results.map((result) => result.allowance)).toEqual([
      { limit: 3, remaining: 2, resetAt: at(minute) },
      { limit: 3, remaining: 1, resetAt: at(minute) },
      { limit: 3, remaining: 0, resetAt: at(minute) },
      { limit: 3, remaining: 0, resetAt: at(minute) },
    ]);
    // The key's first request leaves the window at t0+60s.
    expect((await authenticated(fixture.platform, limited.key, at(minute))).admitted).toBe(true);
  });

  it("leaves the account's other keys the rest of the account allowance", async () => {
    const { account, key } = await fixture.account("free");
    const limited = await fixture.platform.accounts.keys.create(account.id, 3);
    expect(admittedCount(await hits(limited.key, at(0), 5))).toBe(3);
    const rest = await hits(key.key, at(second), 8);
    expect(admittedCount(rest)).toBe(7);
    expect(rest[0]?.allowance).toMatchObject({ limit: 10, remaining: 6 });
  });

  it("reports the account's allowance when it is the more restrictive one for a limited key", async () => {
    const { account, key } = await fixture.account("free");
    const limited = await fixture.platform.accounts.keys.create(account.id, 8);
    expect(admittedCount(await hits(key.key, at(0), 6))).toBe(6);
    const result = await authenticated(fixture.platform, limited.key, at(second));
    // The key has 7 left, the account 3: the account's allowance is the more restrictive.
    expect(result).toMatchObject({ admitted: true, allowance: { limit: 10, remaining: 3, resetAt: at(minute) } });
    expect(admittedCount(await hits(limited.key, at(2 * second), 5))).toBe(3);
  });

  it("describes the account when the key's allowance and the account's tie, on requests and on polls", async () => {
    const { account, key } = await fixture.account("free");
    const limited = await fixture.platform.accounts.keys.create(account.id, 6);
    expect(admittedCount(await hits(key.key, at(0), 4))).toBe(4);
    // After this request the key has 5 of 6 left, resetting at t0+70s, and the account 5 of 10, resetting at t0+60s.
    const result = await authenticated(fixture.platform, limited.key, at(10 * second));
    expect(result).toMatchObject({ admitted: true, allowance: { limit: 10, remaining: 5, resetAt: at(minute) } });
    const poll = await authenticated(fixture.platform, limited.key, at(20 * second), "poll");
    expect(poll.requestAllowance).toEqual({ limit: 10, remaining: 5, resetAt: at(minute) });
  });

  it("never lets a key limit above the plan's raise the account's allowance", async () => {
    const { account } = await fixture.account("free");
    const generous = await fixture.platform.accounts.keys.create(account.id, 50);
    const results = await hits(generous.key, at(0), 12);
    expect(admittedCount(results)).toBe(10);
    expect(results[0]?.allowance.limit).toBe(10);
  });
});

describe("job-status polls have their own allowance of max(2 x requests per minute, 120)", () => {
  it("admits 120 polls of a free account, then refuses, while the request allowance stays whole", async () => {
    const { key } = await fixture.account("free");
    const polls = await hits(key.key, at(0), 121, "poll");
    expect(admittedCount(polls)).toBe(120);
    expect(polls[0]?.allowance).toMatchObject({ limit: 120, remaining: 119 });
    expect(polls.at(-1)).toMatchObject({ admitted: false, allowance: { limit: 120, remaining: 0 } });

    const requests = await hits(key.key, at(second), 11);
    expect(admittedCount(requests)).toBe(10);
    expect(requests[0]?.allowance).toMatchObject({ limit: 10, remaining: 9 });
  });

  it("keeps polling open when the request allowance is used up", async () => {
    const { key } = await fixture.account("free");
    expect(admittedCount(await hits(key.key, at(0), 11))).toBe(10);
    const poll = await authenticated(fixture.platform, key.key, at(second), "poll");
    expect(poll).toMatchObject({ admitted: true, allowance: { limit: 120, remaining: 119 } });
  });

  it("gives a pro account 600 polls per minute and a mega account 1800", async () => {
    const pro = await fixture.account("pro");
    const mega = await fixture.account("mega");
    expect((await authenticated(fixture.platform, pro.key.key, at(0), "poll")).allowance.limit).toBe(600);
    expect((await authenticated(fixture.platform, mega.key.key, at(0), "poll")).allowance.limit).toBe(1800);
  });

  it("shares the polling allowance across the account's keys", async () => {
    const { account, key } = await fixture.account("free");
    const other = await fixture.platform.accounts.keys.create(account.id);
    expect(admittedCount(await hits(key.key, at(0), 70, "poll"))).toBe(70);
    expect(admittedCount(await hits(other.key, at(0), 60, "poll"))).toBe(50);
  });
});

describe("a poll reports the request allowance without counting against it", () => {
  it("answers the request allowance in use for the account and a limited key, and admits no request", async () => {
    const { account, key } = await fixture.account("free");
    const limited = await fixture.platform.accounts.keys.create(account.id, 2);
    expect(admittedCount(await hits(key.key, at(0), 3))).toBe(3);
    expect(admittedCount(await hits(limited.key, at(10 * second), 1))).toBe(1);
    const poll = async (apiKey: string, when: Date) =>
      (await authenticated(fixture.platform, apiKey, when, "poll")).requestAllowance;
    expect(await poll(key.key, at(20 * second))).toEqual({ limit: 10, remaining: 6, resetAt: at(minute) });
    expect(await poll(key.key, at(20 * second))).toEqual({ limit: 10, remaining: 6, resetAt: at(minute) });
    expect(await poll(limited.key, at(20 * second))).toEqual({
      limit: 2,
      remaining: 1,
      resetAt: at(10 * second + minute),
    });
    expect((await authenticated(fixture.platform, key.key, at(20 * second))).allowance.remaining).toBe(5);
    // Sixty seconds after t0 the first three requests have left the window.
    expect(await poll(key.key, at(minute))).toEqual({ limit: 10, remaining: 8, resetAt: at(10 * second + minute) });
  });

  it("reports the request allowance that a request itself counted against", async () => {
    const { key } = await fixture.account("free");
    const auth = await authenticated(fixture.platform, key.key, at(0));
    expect(auth.requestAllowance).toEqual(auth.allowance);
  });
});

describe("an unknown or revoked key is not authenticated", () => {
  it("answers null for an unknown key on both allowances and counts nothing", async () => {
    const unknown = generateApiKey();
    expect(await authenticate(fixture.platform, unknown, at(0))).toBeNull();
    expect(await authenticate(fixture.platform, unknown, at(0), "poll")).toBeNull();
  });

  it("answers null for a revoked key even while the account has allowance left", async () => {
    const { account, key } = await fixture.account("free");
    const other = await fixture.platform.accounts.keys.create(account.id);
    await fixture.platform.accounts.keys.revoke(key.id);
    expect(await authenticate(fixture.platform, key.key, fixture.clock.now())).toBeNull();
    expect((await authenticated(fixture.platform, other.key, fixture.clock.now())).allowance.remaining).toBe(9);
  });
});
