import type { ErrorCode } from "@verbatim/contract";
import { createClient, type VerbatimClient } from "@verbatim/sdk";
import type { Query } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PlanName } from "../../src/services/accounts/plans.ts";
import { type Answer, type ErrorBodyShape, expectErrorEnvelope, expectIssueAt } from "../support/http.ts";
import { startServer, type TestServer } from "../support/server.ts";

/** What an SDK call answers, whatever the operation. */
interface SdkResult {
  data?: unknown;
  error?: unknown;
  response: Response;
}

/** An SDK call's answer in the shape the shared assertions read. */
function answerOf(result: SdkResult): Answer {
  const body = result.data ?? result.error;
  return { status: result.response.status, headers: result.response.headers, text: JSON.stringify(body), body };
}

/** The body, for assertion messages. */
function shown(result: SdkResult): string {
  return JSON.stringify(result.data ?? result.error).slice(0, 2000);
}

function errorOf(result: SdkResult): NonNullable<ErrorBodyShape["error"]> {
  return (result.error as ErrorBodyShape | undefined)?.error ?? {};
}

function expectError(result: SdkResult, status: number, code: ErrorCode): void {
  expectErrorEnvelope(answerOf(result), status, code);
}

/** An `X-RateLimit-*` or `Retry-After` header as the integer it must be. */
function integerHeader(result: SdkResult, name: string): number {
  const value = result.response.headers.get(name);
  expect(value, `${name} of ${shown(result)}`).toMatch(/^\d+$/);
  return Number(value);
}

function rateLimitOf(result: SdkResult): { limit: number; remaining: number; reset: number } {
  return {
    limit: integerHeader(result, "x-ratelimit-limit"),
    remaining: integerHeader(result, "x-ratelimit-remaining"),
    reset: integerHeader(result, "x-ratelimit-reset"),
  };
}

/** A pending operation: it authenticates against the request allowance, then answers 404 "not live yet". */
function listChannel(client: VerbatimClient) {
  return client.POST("/transcripts/channel", { body: { channel: "@jawed" } });
}

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ plan: "pro", credits: 250 });
});
afterAll(() => server.close());

/** A new account on the shared server and a client with its first key. */
async function newAccount(plan: PlanName, credits = 100) {
  const { account, key } = await server.platform.accounts.create({ plan, credits, name: `${plan} test` });
  return { account, key, client: server.clientFor(key.key) };
}

describe("GET /me: 200", () => {
  it("answers kind me with the account's id, balance, plan and request allowance", async () => {
    const result = await server.client.GET("/me");
    expect(result.response.status, shown(result)).toBe(200);
    const before = Math.floor(Date.now() / 1000);
    expect(result.data, shown(result)).toMatchObject({
      ok: true,
      data: { kind: "me", user_id: server.account.id, credits: 250, plan: "pro" },
      usage: { credits_spent: 0, balance: 250, bytes: 0 },
    });
    const rateLimit = result.data?.data.rate_limit;
    expect(rateLimit?.limit, shown(result)).toBe(300);
    expect(rateLimit?.remaining, shown(result)).toBe(300);
    expect(rateLimit?.reset, shown(result)).toBeGreaterThanOrEqual(before);
    expect(rateLimit?.reset, shown(result)).toBeLessThanOrEqual(before + 61);
  });

  it("sends integer X-RateLimit-* headers of the polling allowance, reset within the next 60 seconds", async () => {
    const first = await server.client.GET("/me");
    const second = await server.client.GET("/me");
    expect(second.response.status, shown(second)).toBe(200);
    const nowSeconds = Date.now() / 1000;
    const headers = rateLimitOf(second);
    expect(headers.limit, shown(second)).toBe(600);
    expect(headers.remaining, shown(second)).toBe(rateLimitOf(first).remaining - 1);
    expect(headers.reset, shown(second)).toBeGreaterThanOrEqual(Math.floor(nowSeconds));
    expect(headers.reset, shown(second)).toBeLessThanOrEqual(Math.ceil(nowSeconds) + 60);
  });

  it("sends X-Request-Id equal to the envelope's request_id", async () => {
    const result = await server.client.GET("/me");
    expect(result.data?.request_id, shown(result)).toMatch(/^req_[0-9A-Z]{26}$/);
    expect(result.response.headers.get("x-request-id"), shown(result)).toBe(result.data?.request_id);
  });

  it("does not count against the request allowance", async () => {
    const { client } = await newAccount("free");
    for (let index = 0; index < 3; index++) await client.GET("/me");
    const result = await client.GET("/me");
    expect(result.data?.data.rate_limit, shown(result)).toMatchObject({ limit: 10, remaining: 10 });
  });
});

describe("401 unauthorized", () => {
  const anonymous = () => createClient({ baseUrl: server.baseUrl });

  /** The ways of sending a key the service must refuse alike. */
  const refusals: Record<string, () => Promise<SdkResult>> = {
    "a request without Authorization": () => anonymous().GET("/me"),
    "a malformed key": () => server.clientFor("not-a-key").GET("/me"),
    "a well-formed key that was never issued": () => server.clientFor(`vb_live_${"A".repeat(32)}`).GET("/me"),
    "a valid key sent with the Basic scheme": () =>
      anonymous().GET("/me", {
        headers: { Authorization: `Basic ${Buffer.from(`${server.key.key}:`).toString("base64")}` },
      }),
    "a revoked key": async () => {
      const key = await server.platform.accounts.keys.create(server.account.id);
      const client = server.clientFor(key.key);
      const before = await client.GET("/me");
      expect(before.response.status, shown(before)).toBe(200);
      await server.platform.accounts.keys.revoke(key.id);
      return client.GET("/me");
    },
  };

  it.each(Object.keys(refusals))("refuses %s", async (name) => {
    const result = await (refusals[name] as () => Promise<SdkResult>)();
    expectError(result, 401, "unauthorized");
    expect(result.response.headers.get("x-ratelimit-limit"), shown(result)).toBeNull();
  });

  it("gives the same code, number and message to every refusal, so none can be told apart", async () => {
    const errors = [];
    for (const refuse of Object.values(refusals)) {
      const { code, number, message } = errorOf(await refuse());
      errors.push(JSON.stringify({ code, number, message }));
    }
    expect(errors).toHaveLength(5);
    expect(new Set(errors).size, errors.join("\n")).toBe(1);
    expect(JSON.parse(errors[0] ?? "{}")).toMatchObject({ code: "unauthorized", number: 1101 });
  });

  it("refuses before reading the request: a bad body or parameter without a valid key is 401, not 400", async () => {
    const raw = (path: string, init: RequestInit = {}) => fetch(`${server.baseUrl}/api/v2${path}`, init);
    const json = { "Content-Type": "application/json" };
    const answers = [
      await raw("/transcripts/video", { method: "POST", headers: json, body: "{}" }),
      await raw("/transcripts/video", { method: "POST", headers: json, body: "{not json" }),
      await raw("/transcripts/video", { method: "POST", headers: { "Content-Type": "text/plain" }, body: "video" }),
      await raw("/transcripts/video", {
        method: "POST",
        headers: { ...json, Authorization: "Bearer not-a-key" },
        body: JSON.stringify({ video: "dQw4w9WgXcQ", unknown: 1 }),
      }),
      await raw(`/transcripts/jobs/job_${"x".repeat(80)}`),
    ];
    for (const response of answers) {
      const text = await response.text();
      expectErrorEnvelope(
        { status: response.status, headers: response.headers, text, body: JSON.parse(text) },
        401,
        "unauthorized",
      );
    }
    const unknownPath = await raw("/no-such-operation");
    expect(unknownPath.status).toBe(404);
  });

  it("refuses the old key of a rotation without grace and accepts the new one", async () => {
    const old = await server.platform.accounts.keys.create(server.account.id);
    const { issued } = await server.platform.accounts.keys.rotate(old.id, 0);
    const refused = await server.clientFor(old.key).GET("/me");
    expectError(refused, 401, "unauthorized");
    const accepted = await server.clientFor(issued.key).GET("/me");
    expect(accepted.response.status, shown(accepted)).toBe(200);
  });
});

describe("GET /health and GET /health/deep: authentication", () => {
  it("answers /health without a key", async () => {
    const result = await createClient({ baseUrl: server.baseUrl }).GET("/health");
    expect(result.response.status, shown(result)).toBe(200);
  });

  it("refuses /health/deep without a key", async () => {
    const result = await createClient({ baseUrl: server.baseUrl }).GET("/health/deep");
    expectError(result, 401, "unauthorized");
  });
});

describe("GET /health/deep: 200", () => {
  it("reports the database check as ok", async () => {
    const result = await server.client.GET("/health/deep");
    expect(result.response.status, shown(result)).toBe(200);
    expect(result.data?.data, shown(result)).toMatchObject({ kind: "health_deep", status: "ok" });
    const database = result.data?.data.checks.find((check) => check.name === "database");
    expect(database, shown(result)).toMatchObject({ name: "database", status: "ok", detail: null });
    expect(database?.latency_ms, shown(result)).toBeGreaterThanOrEqual(0);
    expect(result.data?.usage, shown(result)).toEqual({ credits_spent: 0, balance: 250, bytes: 0 });
    rateLimitOf(result);
  });
});

describe("GET /usage: 200", () => {
  /** A clock the test moves: charges are placed on chosen days. */
  let time = Date.parse("2026-03-10T12:00:00.000Z");
  let usageServer: TestServer;
  let requestNumber = 0;

  beforeAll(async () => {
    usageServer = await startServer({ plan: "pro", credits: 100, now: () => new Date(time) });
  });
  afterAll(() => usageServer.close());

  /** Charges through the platform with the clock at `at`. */
  async function chargeAt(at: string, credits: number, operation: string): Promise<void> {
    time = Date.parse(at);
    const requestId = `req_usage_${++requestNumber}`;
    await usageServer.platform.credits.charge({ accountId: usageServer.account.id, credits, operation, requestId });
  }

  beforeAll(async () => {
    await chargeAt("2026-03-08T09:00:00.000Z", 3, "POST /transcripts/channel");
    await chargeAt("2026-03-10T08:00:00.000Z", 2, "POST /transcripts/channel");
    await chargeAt("2026-03-10T11:00:00.000Z", 1, "POST /transcripts/video");
    await chargeAt("2026-01-15T11:00:00.000Z", 4, "POST /transcripts/search");
    time = Date.parse("2026-03-10T12:00:00.000Z");
  });

  it("covers the 30 days ending today by default, every day present", async () => {
    const result = await usageServer.client.GET("/usage");
    expect(result.response.status, shown(result)).toBe(200);
    const report = result.data?.data;
    expect(report, shown(result)).toMatchObject({ kind: "usage", from: "2026-02-09", to: "2026-03-10", balance: 90 });
    const dates = report?.days.map((day) => day.date) ?? [];
    expect(dates.length, shown(result)).toBe(30);
    const expected = Array.from({ length: 30 }, (_, index) =>
      new Date(Date.parse("2026-02-09") + index * 86_400_000).toISOString().slice(0, 10),
    );
    expect(dates, shown(result)).toEqual(expected);
  });

  it("sums the charges per day and per endpoint", async () => {
    const result = await usageServer.client.GET("/usage");
    const report = result.data?.data;
    expect(report?.credits_spent, shown(result)).toBe(6);
    const days = new Map(report?.days.map((day) => [day.date, day]));
    expect(days.get("2026-03-08"), shown(result)).toEqual({ date: "2026-03-08", credits_spent: 3, requests: 1 });
    expect(days.get("2026-03-09"), shown(result)).toEqual({ date: "2026-03-09", credits_spent: 0, requests: 0 });
    expect(days.get("2026-03-10"), shown(result)).toEqual({ date: "2026-03-10", credits_spent: 3, requests: 2 });
    const spentOnOtherDays = report?.days
      .filter((day) => !["2026-03-08", "2026-03-10"].includes(day.date))
      .reduce((sum, day) => sum + day.credits_spent, 0);
    expect(spentOnOtherDays, shown(result)).toBe(0);
    expect(report?.endpoints, shown(result)).toEqual([
      { endpoint: "POST /transcripts/channel", credits_spent: 5, requests: 2 },
      { endpoint: "POST /transcripts/video", credits_spent: 1, requests: 1 },
    ]);
    expect(result.data?.usage, shown(result)).toEqual({ credits_spent: 0, balance: 90, bytes: 0 });
  });

  it("reports only the days of an explicit period", async () => {
    const result = await usageServer.client.GET("/usage", {
      params: { query: { from: "2026-03-08", to: "2026-03-09" } },
    });
    expect(result.response.status, shown(result)).toBe(200);
    expect(result.data?.data, shown(result)).toMatchObject({
      from: "2026-03-08",
      to: "2026-03-09",
      credits_spent: 3,
      days: [
        { date: "2026-03-08", credits_spent: 3, requests: 1 },
        { date: "2026-03-09", credits_spent: 0, requests: 0 },
      ],
      endpoints: [{ endpoint: "POST /transcripts/channel", credits_spent: 3, requests: 1 }],
    });
  });

  it("ends a period given only by its first day today", async () => {
    const result = await usageServer.client.GET("/usage", { params: { query: { from: "2026-01-01" } } });
    expect(result.response.status, shown(result)).toBe(200);
    expect(result.data?.data, shown(result)).toMatchObject({ from: "2026-01-01", to: "2026-03-10", credits_spent: 10 });
    expect(result.data?.data.days.length, shown(result)).toBe(69);
  });

  it("starts a period given only by its last day 29 days earlier", async () => {
    const result = await usageServer.client.GET("/usage", { params: { query: { to: "2026-01-31" } } });
    expect(result.response.status, shown(result)).toBe(200);
    expect(result.data?.data, shown(result)).toMatchObject({ from: "2026-01-02", to: "2026-01-31", credits_spent: 4 });
  });

  it("accepts a period of exactly 366 days", async () => {
    const result = await usageServer.client.GET("/usage", {
      params: { query: { from: "2025-03-10", to: "2026-03-10" } },
    });
    expect(result.response.status, shown(result)).toBe(200);
    expect(result.data?.data.days.length, shown(result)).toBe(366);
  });

  it("counts no charge of another account", async () => {
    const other = await usageServer.platform.accounts.create({ plan: "free", credits: 5 });
    const result = await usageServer.clientFor(other.key.key).GET("/usage");
    expect(result.data?.data, shown(result)).toMatchObject({ credits_spent: 0, endpoints: [], balance: 5 });
  });
});

describe("GET /usage: 400", () => {
  it("refuses a period whose first day is after its last, with an issue at /query/to", async () => {
    const result = await server.client.GET("/usage", { params: { query: { from: "2026-03-02", to: "2026-03-01" } } });
    expectError(result, 400, "invalid_request");
    expectIssueAt(answerOf(result), "/query/to");
  });

  it("refuses a period of more than 366 days", async () => {
    const result = await server.client.GET("/usage", { params: { query: { from: "2025-03-01", to: "2026-03-02" } } });
    expectError(result, 400, "invalid_request");
    expectIssueAt(answerOf(result), "/query/from");
  });

  it.each([
    ["from", "2026-3-1"],
    ["from", "yesterday"],
    ["to", "2026-03-01T00:00:00Z"],
    ["to", "2026-13-01"],
    ["from", "2026-00-10"],
    ["from", "2026-02-30"],
    ["to", "2026-04-31"],
  ] as const)("refuses the malformed or impossible date %s=%s", async (name, value) => {
    const result = await server.client.GET("/usage", { params: { query: { [name]: value } } });
    expectError(result, 400, "invalid_request");
    expectIssueAt(answerOf(result), `/query/${name}`);
  });
});

describe("429 rate_limited: the polling allowance", () => {
  it("admits 120 GET /me a minute on the free plan and refuses the 121st, without charging it", async () => {
    const { account, client } = await newAccount("free", 100);
    for (let index = 1; index <= 120; index++) {
      const result = await client.GET("/me");
      expect(result.response.status, `request ${index}: ${shown(result)}`).toBe(200);
      expect(rateLimitOf(result), `request ${index}`).toMatchObject({ limit: 120, remaining: 120 - index });
    }
    const refused = await client.GET("/me");
    expectError(refused, 429, "rate_limited");
    const retryAfter = integerHeader(refused, "retry-after");
    expect(retryAfter, shown(refused)).toBeGreaterThanOrEqual(1);
    expect(retryAfter, shown(refused)).toBeLessThanOrEqual(60);
    expect(rateLimitOf(refused), shown(refused)).toMatchObject({ limit: 120, remaining: 0 });
    expect(await server.platform.credits.balance(account.id)).toBe(100);
  });

  it("leaves the request allowance of the account untouched", async () => {
    const { client } = await newAccount("free");
    for (let index = 0; index < 120; index++) await client.GET("/me");
    expectError(await client.GET("/me"), 429, "rate_limited");
    const pending = await listChannel(client);
    expectError(pending, 404, "not_found");
    expect(rateLimitOf(pending), shown(pending)).toMatchObject({ limit: 10, remaining: 9 });
  });
});

describe("429 rate_limited: the request allowance", () => {
  it("authenticates pending operations: 10 requests a minute pass on the free plan, the 11th is refused", async () => {
    const { account, client } = await newAccount("free", 100);
    for (let index = 1; index <= 10; index++) {
      const result = await listChannel(client);
      expectError(result, 404, "not_found");
      expect(rateLimitOf(result), `request ${index}`).toMatchObject({ limit: 10, remaining: 10 - index });
    }
    const refused = await listChannel(client);
    expectError(refused, 429, "rate_limited");
    expect(integerHeader(refused, "retry-after"), shown(refused)).toBeGreaterThanOrEqual(1);
    expect(rateLimitOf(refused), shown(refused)).toMatchObject({ limit: 10, remaining: 0 });
    expect(await server.platform.credits.balance(account.id)).toBe(100);

    const me = await client.GET("/me");
    expect(me.response.status, shown(me)).toBe(200);
    expect(me.data?.data.rate_limit, shown(me)).toMatchObject({ limit: 10, remaining: 0 });
  });

  it("refuses a key with a lower limit after that limit, with headers describing it", async () => {
    const { account, client } = await newAccount("free");
    const limited = await server.platform.accounts.keys.create(account.id);
    await server.platform.accounts.keys.setLimit(limited.id, 3);
    const limitedClient = server.clientFor(limited.key);
    for (let index = 1; index <= 3; index++) {
      const result = await listChannel(limitedClient);
      expectError(result, 404, "not_found");
      expect(rateLimitOf(result), `request ${index}`).toMatchObject({ limit: 3, remaining: 3 - index });
    }
    const refused = await listChannel(limitedClient);
    expectError(refused, 429, "rate_limited");
    expect(rateLimitOf(refused), shown(refused)).toMatchObject({ limit: 3, remaining: 0 });
    expect(integerHeader(refused, "retry-after"), shown(refused)).toBeGreaterThanOrEqual(1);

    const me = await limitedClient.GET("/me");
    expect(me.data?.data.rate_limit, shown(me)).toMatchObject({ limit: 3, remaining: 0 });

    // The account's other key still has what the limited key left of the account's 10.
    const other = await listChannel(client);
    expectError(other, 404, "not_found");
    expect(rateLimitOf(other), shown(other)).toMatchObject({ limit: 10, remaining: 6 });
  });

  it("gives a second key of the account no extra capacity", async () => {
    const { account, client } = await newAccount("free");
    const second = server.clientFor((await server.platform.accounts.keys.create(account.id)).key);
    for (let index = 0; index < 5; index++) expectError(await listChannel(client), 404, "not_found");
    const firstOfSecond = await listChannel(second);
    expectError(firstOfSecond, 404, "not_found");
    expect(rateLimitOf(firstOfSecond), shown(firstOfSecond)).toMatchObject({ limit: 10, remaining: 4 });
    for (let index = 0; index < 4; index++) expectError(await listChannel(second), 404, "not_found");
    expectError(await listChannel(second), 429, "rate_limited");
    expectError(await listChannel(client), 429, "rate_limited");
  });

  it("counts each account separately", async () => {
    const exhausted = await newAccount("free");
    for (let index = 0; index < 10; index++) await listChannel(exhausted.client);
    expectError(await listChannel(exhausted.client), 429, "rate_limited");
    const fresh = await newAccount("free");
    const result = await listChannel(fresh.client);
    expectError(result, 404, "not_found");
    expect(rateLimitOf(result), shown(result)).toMatchObject({ limit: 10, remaining: 9 });
  });
});

describe("429 rate_limited: the sliding 60-second window", () => {
  const start = Date.parse("2026-05-01T10:00:00.000Z");
  let time = start;
  let windowServer: TestServer;
  beforeAll(async () => {
    windowServer = await startServer({ plan: "free", now: () => new Date(time) });
  });
  afterAll(() => windowServer.close());

  it("frees a request exactly 60 seconds after it was admitted, and says when in Retry-After and X-RateLimit-Reset", async () => {
    const client = windowServer.client;
    time = start;
    for (let index = 0; index < 5; index++) expectError(await listChannel(client), 404, "not_found");
    time = start + 30_000;
    for (let index = 0; index < 5; index++) expectError(await listChannel(client), 404, "not_found");

    const refused = await listChannel(client);
    expectError(refused, 429, "rate_limited");
    expect(integerHeader(refused, "retry-after"), shown(refused)).toBe(30);
    expect(rateLimitOf(refused), shown(refused)).toEqual({ limit: 10, remaining: 0, reset: start / 1000 + 60 });

    time = start + 59_999;
    const stillRefused = await listChannel(client);
    expectError(stillRefused, 429, "rate_limited");
    expect(integerHeader(stillRefused, "retry-after"), shown(stillRefused)).toBe(1);

    time = start + 60_000;
    const admitted = await listChannel(client);
    expectError(admitted, 404, "not_found");
    expect(rateLimitOf(admitted), shown(admitted)).toEqual({ limit: 10, remaining: 4, reset: start / 1000 + 90 });
  });

  it("keeps the old key of a rotation working through its grace period, and refuses it after", async () => {
    time = start + 3_600_000;
    const old = await windowServer.platform.accounts.keys.create(windowServer.account.id);
    const { issued, revoked } = await windowServer.platform.accounts.keys.rotate(old.id, 600);
    expect(revoked.state).toBe("revoking");
    time += 599_000;
    const during = await windowServer.clientFor(old.key).GET("/me");
    expect(during.response.status, shown(during)).toBe(200);
    time += 1_000;
    expectError(await windowServer.clientFor(old.key).GET("/me"), 401, "unauthorized");
    const replacement = await windowServer.clientFor(issued.key).GET("/me");
    expect(replacement.response.status, shown(replacement)).toBe(200);
  });
});

describe("GET /me: unlimited accounts", () => {
  it("answers credits and balance null for an account without a credit limit", async () => {
    const { account, key } = await server.platform.accounts.create({ plan: "scale", credits: null });
    const result = await server.clientFor(key.key).GET("/me");
    expect(result.response.status, shown(result)).toBe(200);
    expect(result.data, shown(result)).toMatchObject({
      data: { kind: "me", user_id: account.id, credits: null, plan: "scale", rate_limit: { limit: 900 } },
      usage: { credits_spent: 0, balance: null, bytes: 0 },
    });
  });
});

describe("503 overloaded: admission closed", () => {
  function expectOverloaded(result: SdkResult): void {
    expectError(result, 503, "overloaded");
    const retryAfter = integerHeader(result, "retry-after");
    expect(retryAfter, shown(result)).toBeGreaterThanOrEqual(1);
  }

  /**
   * Makes the server's store fail every statement but those whose SQL `pass` lets through; answers
   * how to undo it. It breaks the session of the store's Drizzle database, which every statement is
   * prepared through: `Store.query`, `execute` and the named statements alike.
   */
  function breakStore(target: TestServer, pass: (statement: string) => boolean = () => false): () => void {
    const { session } = target.platform.store.db._;
    const prepareQuery = session.prepareQuery;
    session.prepareQuery = ((query: Query, ...rest: unknown[]) => {
      const prepared = (prepareQuery as (...args: unknown[]) => { execute: unknown }).call(session, query, ...rest);
      if (!pass(query.sql)) prepared.execute = () => Promise.reject(new Error("connect ECONNREFUSED 127.0.0.1:5432"));
      return prepared;
    }) as typeof session.prepareQuery;
    return () => {
      session.prepareQuery = prepareQuery;
    };
  }

  let broken: TestServer;
  beforeAll(async () => {
    broken = await startServer({ plan: "free" });
  });
  afterAll(() => broken.close());

  it("answers 503 with Retry-After, never 500, while the store's queries fail", async () => {
    const repair = breakStore(broken);
    try {
      expectOverloaded(await broken.client.GET("/me"));
      expectOverloaded(await broken.client.GET("/usage"));
      expectOverloaded(await broken.client.GET("/health/deep"));
      expectOverloaded(await listChannel(broken.client));
      const health = await createClient({ baseUrl: broken.baseUrl }).GET("/health");
      expect(health.response.status, shown(health)).toBe(200);
    } finally {
      repair();
    }
    const recovered = await broken.client.GET("/me");
    expect(recovered.response.status, shown(recovered)).toBe(200);
  });

  it("answers 503, never 500, when the store fails after admitting the request", async () => {
    const repair = breakStore(broken, (statement) => statement.includes("verbatim_authenticate"));
    try {
      expectOverloaded(await broken.client.GET("/usage"));
      // Admission already read everything /me answers: it needs no second round trip to fail.
      expect((await broken.client.GET("/me")).response.status).toBe(200);
    } finally {
      repair();
    }
  });

  it("still refuses an inverted period with 400 while the store works", async () => {
    const result = await broken.client.GET("/usage", { params: { query: { from: "2026-03-02", to: "2026-03-01" } } });
    expectError(result, 400, "invalid_request");
  });

  it("reports the database as failing in GET /health/deep when only its ping fails", async () => {
    const repair = breakStore(broken, (statement) => !statement.includes("select 1"));
    try {
      const result = await broken.client.GET("/health/deep");
      expect(result.response.status, shown(result)).toBe(200);
      expect(result.data?.data, shown(result)).toMatchObject({
        status: "degraded",
        checks: [
          { name: "database", status: "failing", detail: expect.stringMatching(/ECONNREFUSED/) },
          { name: "workers", status: "ok" },
        ],
      });
    } finally {
      repair();
    }
  });

  it("answers 503 with Retry-After, never 500, once the store is closed", async () => {
    const closed = await startServer({ plan: "free" });
    const { store } = closed.platform;
    const close = store.close;
    try {
      await close.call(store);
      store.close = async () => undefined;
      expectOverloaded(await closed.client.GET("/me"));
      expectOverloaded(await listChannel(closed.client));
    } finally {
      await closed.close();
    }
  });
});
