import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiError } from "../../src/errors.ts";
import { Idempotency, type IdempotencyStart, type StoredResponse } from "../../src/services/accounts/idempotency.ts";
import {
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

const path = "/api/v2/transcripts/video";
const body = { url: "https://www.youtube.com/watch?v=dQw4w9WgXcQ", mode: "captions" };
const print = Idempotency.fingerprint("POST", path, body);
const ok: StoredResponse = { status: 200, headers: { "X-Request-Id": "req_first" }, body: { data: { text: "hi" } } };

let keyCounter = 0;
/** A fresh Idempotency-Key per test, so tests never see each other's records. */
const newKey = () => `key-${Date.now().toString(36)}-${keyCounter++}`;

const begin = (accountId: string, key: string, fingerprint = print): Promise<IdempotencyStart> =>
  fixture.platform.idempotency.begin(accountId, key, fingerprint);

/**
 * A billed request with an Idempotency-Key, as the HTTP layer runs it: on `run` it charges
 * 1 credit and stores the answer (or gives the key back when the charge is refused).
 */
async function billedRequest(accountId: string, key: string, status = 200): Promise<"ran" | "replayed"> {
  const start = await begin(accountId, key);
  if (start.action === "replay") return "replayed";
  try {
    await fixture.platform.credits.charge({ accountId, credits: 1, operation: `POST ${path}`, requestId: "req_x" });
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    await fixture.platform.idempotency.finish(accountId, key, print, { status: error.status, headers: {}, body: {} });
    throw error;
  }
  await fixture.platform.idempotency.finish(accountId, key, print, { ...ok, status });
  return "ran";
}

describe("rule 2-3: the first request with a key runs, a retry replays it without a charge", () => {
  it("runs the first request, charges once and replays the same status, headers and body", async () => {
    const { account } = await fixture.account("free", 5);
    const key = newKey();
    expect(await billedRequest(account.id, key)).toBe("ran");
    expect(await begin(account.id, key)).toEqual({ action: "replay", response: ok });
    expect(await billedRequest(account.id, key)).toBe("replayed");
    expect(await billedRequest(account.id, key)).toBe("replayed");
    expect(await fixture.platform.credits.balance(account.id)).toBe(4);
  });

  it("treats the same body with its fields in another order as the same request", async () => {
    const { account } = await fixture.account();
    const key = newKey();
    await begin(account.id, key);
    await fixture.platform.idempotency.finish(account.id, key, print, ok);
    const reordered = Idempotency.fingerprint("POST", path, { mode: "captions", url: body.url });
    expect(reordered).toBe(print);
    expect((await begin(account.id, key, reordered)).action).toBe("replay");
  });
});

describe("rule 4: stored responses are replayed for 24 hours", () => {
  it("replays after 23 h 59 min and runs again at 24 h", async () => {
    const { account } = await fixture.account("free", 5);
    const key = newKey();
    const start = fixture.clock.now();
    expect(await billedRequest(account.id, key)).toBe("ran");

    fixture.clock.set(new Date(start.getTime() + 23 * hour + 59 * minute));
    expect(await billedRequest(account.id, key)).toBe("replayed");
    fixture.clock.set(new Date(start.getTime() + 24 * hour - 1));
    expect(await billedRequest(account.id, key)).toBe("replayed");

    fixture.clock.set(new Date(start.getTime() + 24 * hour));
    expect(await billedRequest(account.id, key)).toBe("ran");
    expect(await fixture.platform.credits.balance(account.id)).toBe(3);
    // The new run starts a new 24 hours.
    fixture.clock.advance(23 * hour);
    expect(await billedRequest(account.id, key)).toBe("replayed");
    fixture.clock.set(start);
  });

  it("runs a key again after 24 h even with another body", async () => {
    const { account } = await fixture.account();
    const key = newKey();
    const start = fixture.clock.now();
    await begin(account.id, key);
    await fixture.platform.idempotency.finish(account.id, key, print, ok);
    const other = Idempotency.fingerprint("POST", path, { url: "https://youtu.be/other" });
    await expectApiError(begin(account.id, key, other), "idempotency_conflict", 409);
    fixture.clock.set(new Date(start.getTime() + 24 * hour));
    expect(await begin(account.id, key, other)).toEqual({ action: "run" });
    fixture.clock.set(start);
  });

  it("sweeps records past their retention and keeps the others", async () => {
    const { account } = await fixture.account();
    const start = fixture.clock.now();
    const old = newKey();
    await begin(account.id, old);
    await fixture.platform.idempotency.finish(account.id, old, print, ok);
    fixture.clock.advance(hour);
    const recent = newKey();
    await begin(account.id, recent);
    await fixture.platform.idempotency.finish(account.id, recent, print, ok);
    fixture.clock.set(new Date(start.getTime() + 24 * hour));
    expect(await fixture.platform.idempotency.sweep()).toBeGreaterThanOrEqual(1);
    expect((await begin(account.id, recent)).action).toBe("replay");
    fixture.clock.set(start);
  });
});

describe("rule 5: only 2xx responses are stored; after any other the same key runs again", () => {
  it("runs the key again after a 503", async () => {
    const { account } = await fixture.account();
    const key = newKey();
    expect(await begin(account.id, key)).toEqual({ action: "run" });
    await fixture.platform.idempotency.finish(account.id, key, print, {
      status: 503,
      headers: {},
      body: { error: { code: "upstream_error" } },
    });
    expect(await begin(account.id, key)).toEqual({ action: "run" });
  });

  it("runs the key again after a 402 fixed by a top-up, and charges only the successful run", async () => {
    const { account } = await fixture.account("free", 0);
    const key = newKey();
    await expectApiError(billedRequest(account.id, key), "insufficient_credits", 402);
    await expectApiError(billedRequest(account.id, key), "insufficient_credits", 402);
    await fixture.platform.credits.grant(account.id, 2, "top-up");
    expect(await billedRequest(account.id, key)).toBe("ran");
    expect(await billedRequest(account.id, key)).toBe("replayed");
    expect(await fixture.platform.credits.balance(account.id)).toBe(1);
    expect((await ledgerOf(fixture.store, account.id)).filter((row) => row.kind === "charge")).toHaveLength(1);
  });

  it("runs the key again after a 4xx such as 422, and after a release without an answer", async () => {
    const { account } = await fixture.account();
    const key = newKey();
    await begin(account.id, key);
    await fixture.platform.idempotency.finish(account.id, key, print, { status: 422, headers: {}, body: {} });
    expect((await begin(account.id, key)).action).toBe("run");
    await fixture.platform.idempotency.release(account.id, key, print);
    expect((await begin(account.id, key)).action).toBe("run");
  });

  it("stores every 2xx status, from 200 to 299", async () => {
    const { account } = await fixture.account();
    for (const status of [200, 201, 204, 299]) {
      const key = newKey();
      await begin(account.id, key);
      await fixture.platform.idempotency.finish(account.id, key, print, { status, headers: {}, body: { status } });
      expect(await begin(account.id, key)).toEqual({
        action: "replay",
        response: { status, headers: {}, body: { status } },
      });
    }
  });
});

describe("rule 6: a replayed transcription request answers its stored 202 body", () => {
  it("replays the 202 with the job id, not a later state", async () => {
    const { account } = await fixture.account();
    const key = newKey();
    const accepted: StoredResponse = {
      status: 202,
      headers: { "X-Request-Id": "req_accepted" },
      body: { ok: true, data: { kind: "job", job_id: "job_01ABC", status: "queued" } },
    };
    await begin(account.id, key);
    await fixture.platform.idempotency.finish(account.id, key, print, accepted);
    fixture.clock.advance(10 * minute);
    expect(await begin(account.id, key)).toEqual({ action: "replay", response: accepted });
    fixture.clock.advance(-10 * minute);
  });
});

describe("rule 7: a key reused with another body, or while its first request runs, is a 409", () => {
  it("answers idempotency_conflict for another body after the first completed", async () => {
    const { account } = await fixture.account();
    const key = newKey();
    await begin(account.id, key);
    await fixture.platform.idempotency.finish(account.id, key, print, ok);
    const error = await expectApiError(
      begin(account.id, key, Idempotency.fingerprint("POST", path, { ...body, mode: "audio" })),
      "idempotency_conflict",
      409,
    );
    expect(error.number).toBe(1201);
    await expectApiError(
      begin(account.id, key, Idempotency.fingerprint("POST", "/api/v2/transcripts/channel", body)),
      "idempotency_conflict",
      409,
    );
    // The stored response is untouched by the conflicts.
    expect(await begin(account.id, key)).toEqual({ action: "replay", response: ok });
  });

  it("answers idempotency_conflict while the first request is in flight, with the same or another body", async () => {
    const { account } = await fixture.account();
    const key = newKey();
    expect(await begin(account.id, key)).toEqual({ action: "run" });
    await expectApiError(begin(account.id, key), "idempotency_conflict", 409);
    await expectApiError(
      begin(account.id, key, Idempotency.fingerprint("POST", path, { url: "https://youtu.be/x" })),
      "idempotency_conflict",
      409,
    );
    fixture.clock.advance(29 * second);
    await expectApiError(begin(account.id, key), "idempotency_conflict", 409);
    fixture.clock.advance(-29 * second);
    await fixture.platform.idempotency.finish(account.id, key, print, ok);
    expect((await begin(account.id, key)).action).toBe("replay");
  });

  it("does not let a conflicting request's release give the first request's key back", async () => {
    const { account } = await fixture.account();
    const key = newKey();
    await begin(account.id, key);
    const other = Idempotency.fingerprint("POST", path, { url: "https://youtu.be/other" });
    await expectApiError(begin(account.id, key, other), "idempotency_conflict", 409);
    await fixture.platform.idempotency.release(account.id, key, other);
    await expectApiError(begin(account.id, key), "idempotency_conflict", 409);
  });
});

describe("an in-flight key abandoned by a dead process is taken over after its lock", () => {
  it("runs the key again once the 30-second in-flight lock has passed, and says so in Retry-After", async () => {
    const { account } = await fixture.account();
    const key = newKey();
    const start = fixture.clock.now();
    expect((await begin(account.id, key)).action).toBe("run");
    const early = await begin(account.id, key).catch((error: unknown) => error);
    expect(early).toMatchObject({ code: "idempotency_conflict", retryAfterSeconds: 30 });
    fixture.clock.set(new Date(start.getTime() + 30 * second - 1_500));
    const late = await begin(account.id, key).catch((error: unknown) => error);
    expect(late).toMatchObject({ code: "idempotency_conflict", retryAfterSeconds: 2 });
    fixture.clock.set(new Date(start.getTime() + 30 * second));
    expect(await begin(account.id, key)).toEqual({ action: "run" });
    // The new run holds the key again.
    await expectApiError(begin(account.id, key), "idempotency_conflict", 409);
    await fixture.platform.idempotency.finish(account.id, key, print, ok);
    expect((await begin(account.id, key)).action).toBe("replay");
    fixture.clock.set(start);
  });

  it("honours a configured in-flight lock and retention", async () => {
    const { account } = await fixture.account();
    const idempotency = new Idempotency(fixture.store, {
      now: fixture.clock.now,
      inFlightSeconds: 10,
      retentionSeconds: 60,
    });
    const key = newKey();
    const start = fixture.clock.now();
    await idempotency.begin(account.id, key, print);
    fixture.clock.advance(10 * second);
    expect((await idempotency.begin(account.id, key, print)).action).toBe("run");
    await idempotency.finish(account.id, key, print, ok);
    fixture.clock.advance(60 * second - 1);
    expect((await idempotency.begin(account.id, key, print)).action).toBe("replay");
    fixture.clock.advance(1);
    expect((await idempotency.begin(account.id, key, print)).action).toBe("run");
    fixture.clock.set(start);
  });
});

describe("idempotency keys are scoped to their account", () => {
  it("runs the same key independently on two accounts and replays each account's own answer", async () => {
    const first = await fixture.account("free", 3);
    const other = await fixture.account("free", 3);
    const key = newKey();
    expect(await begin(first.account.id, key)).toEqual({ action: "run" });
    // In flight on the first account, free on the other.
    expect(await begin(other.account.id, key)).toEqual({ action: "run" });
    const firstAnswer: StoredResponse = { status: 200, headers: {}, body: { account: "first" } };
    const otherAnswer: StoredResponse = { status: 200, headers: {}, body: { account: "other" } };
    await fixture.platform.idempotency.finish(first.account.id, key, print, firstAnswer);
    await fixture.platform.idempotency.finish(other.account.id, key, print, otherAnswer);
    expect(await begin(first.account.id, key)).toEqual({ action: "replay", response: firstAnswer });
    expect(await begin(other.account.id, key)).toEqual({ action: "replay", response: otherAnswer });
  });

  it("lets another account use a key with a different body without a conflict", async () => {
    const first = await fixture.account();
    const other = await fixture.account();
    const key = newKey();
    await begin(first.account.id, key);
    await fixture.platform.idempotency.finish(first.account.id, key, print, ok);
    const otherPrint = Idempotency.fingerprint("POST", path, { url: "https://youtu.be/other" });
    expect(await begin(other.account.id, key, otherPrint)).toEqual({ action: "run" });
  });
});

describe("rule 1: a key is any string of at most 255 characters", () => {
  it("stores and replays a 255-character key with any characters", async () => {
    const { account } = await fixture.account();
    const key = `ключ 🔑 ${"x".repeat(255)}`.slice(0, 255);
    await begin(account.id, key);
    await fixture.platform.idempotency.finish(account.id, key, print, ok);
    expect(await begin(account.id, key)).toEqual({ action: "replay", response: ok });
  });
});
