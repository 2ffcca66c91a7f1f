import { eventually } from "@verbatim/testkit/eventually";
import { type LoopbackServer, listenOnLoopback } from "@verbatim/testkit/listen";
import { sql } from "drizzle-orm";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authenticate } from "../src/http/auth.ts";
import { errorHandler } from "../src/http/error-handler.ts";
import { idempotent, settlementOf } from "../src/http/idempotency.ts";
import { authOf, requestIdOf } from "../src/http/locals.ts";
import { assignRequestId } from "../src/http/request-id.ts";
import { Idempotency } from "../src/services/accounts/idempotency.ts";
import { startServer, type TestServer } from "./support/server.ts";

// A billed operation behind the real authentication and Idempotency-Key middleware: it charges
// one credit through the request's settlement, as the transcript routes do, and answers 200, or
// the status the body asks for, so every part of docs/decisions.md rule 9 can be driven over HTTP.
let platformServer: TestServer;
let server: LoopbackServer;
let runs = 0;

beforeAll(async () => {
  platformServer = await startServer({ plan: "pro", credits: 100 });
  const { deps } = platformServer;
  const app = express();
  app.use(assignRequestId());
  app.use(express.json());
  app.post("/work", authenticate(deps, "request"), idempotent(deps), async (req, res) => {
    runs++;
    const {
      status = 200,
      delayMs = 0,
      failAfterCharge = false,
    } = req.body as {
      status?: number;
      delayMs?: number;
      failAfterCharge?: boolean;
    };
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    if (status !== 200) {
      res.status(status).json({ ok: false, request_id: requestIdOf(res) });
      return;
    }
    const settlement = settlementOf(res);
    const balance = await deps.platform.credits.charge({
      accountId: authOf(res).accountId,
      credits: 1,
      operation: "POST /work",
      requestId: requestIdOf(res),
      ...(settlement ? { settlement } : {}),
    });
    if (failAfterCharge) throw new Error("the route failed after charging");
    res.status(200).json({ ok: true, request_id: requestIdOf(res), run: runs, balance });
  });
  app.use(errorHandler(deps));
  server = await listenOnLoopback(app);
});

afterAll(async () => {
  await server.close();
  await platformServer.close();
});

async function work(key: string, body: Record<string, unknown>) {
  const response = await fetch(`${server.baseUrl}/work`, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${platformServer.key.key}`,
      "Content-Type": "application/json",
      "Idempotency-Key": key,
    },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return { response, text, body: JSON.parse(text) as Record<string, unknown> & { error?: { code: string } } };
}

const balance = () => platformServer.platform.credits.balance(platformServer.account.id);

describe("a retry with the same Idempotency-Key and body: 200 replayed", () => {
  it("runs and charges once, then replays the stored body and request id with Idempotent-Replayed", async () => {
    const before = await balance();
    const first = await work("replay-1", { note: "a" });
    expect(first.response.status, JSON.stringify(first.body)).toBe(200);
    expect(first.response.headers.get("idempotent-replayed")).toBeNull();

    const retry = await work("replay-1", { note: "a" });
    expect(retry.response.status, JSON.stringify(retry.body)).toBe(200);
    expect(retry.response.headers.get("idempotent-replayed")).toBe("true");
    // The same bytes, keys in their first order (jsonb would have sorted them).
    expect(retry.text).toBe(first.text);
    expect(retry.response.headers.get("x-request-id")).toBe(first.body.request_id);
    expect(await balance()).toBe((before ?? 0) - 1);
  });
});

describe("the same key with another body: 409", () => {
  it("answers idempotency_conflict 1201 and charges nothing", async () => {
    await work("conflict-1", { note: "a" });
    const before = await balance();
    const other = await work("conflict-1", { note: "b" });
    expect(other.response.status, JSON.stringify(other.body)).toBe(409);
    expect(other.body.error).toMatchObject({ code: "idempotency_conflict", number: 1201 });
    // Waiting would not help: the same key with this body will never run.
    expect(other.response.headers.get("retry-after")).toBeNull();
    expect(await balance()).toBe(before);
  });

  it("answers idempotency_conflict while the first request is still running", async () => {
    const first = work("in-flight-1", { delayMs: 400 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const second = await work("in-flight-1", { delayMs: 400 });
    expect(second.response.status, JSON.stringify(second.body)).toBe(409);
    expect(second.body.error).toMatchObject({ code: "idempotency_conflict", number: 1201 });
    // Until the first request's lock lapses (30 seconds by default), by when its answer is stored or its key free.
    const retryAfter = Number(second.response.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(29);
    expect(retryAfter).toBeLessThanOrEqual(30);
    expect((await first).response.status).toBe(200);
  });
});

describe("a failure is not stored: the same key runs again", () => {
  it("runs a key again after a 503, and stores the later 200", async () => {
    const failed = await work("after-failure-1", { status: 503 });
    expect(failed.response.status).toBe(503);
    const runsBefore = runs;
    const retried = await work("after-failure-1", { status: 503 });
    expect(retried.response.headers.get("idempotent-replayed")).toBeNull();
    expect(runs).toBe(runsBefore + 1);
  });
});

describe("a store that fails while the key is claimed: 503 overloaded", () => {
  it("answers 503 overloaded with Retry-After, not a 500, and runs nothing", async () => {
    const { idempotency } = platformServer.platform;
    const begin = idempotency.begin;
    idempotency.begin = () => Promise.reject(new Error("Connection terminated unexpectedly"));
    const runsBefore = runs;
    try {
      const refused = await work("store-away-1", { note: "a" });
      expect(refused.response.status, refused.text).toBe(503);
      expect(refused.body.error?.code).toBe("overloaded");
      expect(refused.response.headers.get("retry-after")).toBe("5");
      expect(runs).toBe(runsBefore);
    } finally {
      idempotency.begin = begin;
    }
  });
});

describe("a key that could not be given back while the store was away", () => {
  it("is given back once the store answers again: a retry runs instead of meeting 409 for the lock's period", async () => {
    const { idempotency } = platformServer.platform;
    const release = idempotency.release;
    let refusals = 2;
    let givenBack = false;
    idempotency.release = async (...args) => {
      if (refusals > 0) {
        refusals--;
        throw new Error("Connection terminated unexpectedly");
      }
      await release.apply(idempotency, args);
      givenBack = true;
    };
    try {
      const failed = await work("store-back-1", { status: 503 });
      expect(failed.response.status, failed.text).toBe(503);
      // The answer's own release and the first retry were refused; a later retry gives the key back.
      await eventually(() => givenBack);
      expect(refusals).toBe(0);
      const runsBefore = runs;
      const retried = await work("store-back-1", { status: 503 });
      expect(retried.body.error?.code, retried.text).not.toBe("idempotency_conflict");
      expect(runs).toBe(runsBefore + 1);
    } finally {
      idempotency.release = release;
    }
  });
});

describe("the charge commits with the stored answer, in one transaction", () => {
  const charges = async (requestId: unknown) =>
    (
      await platformServer.platform.store.query<{ charges: number }>(
        sql`select count(*)::int as charges from credit_ledger where request_id = ${String(requestId)}`,
      )
    )[0]?.charges;

  it("rolls the charge back when the request fails after charging, and gives the key back", async () => {
    const before = await balance();
    const failed = await work("fail-after-charge-1", { failAfterCharge: true });
    expect(failed.response.status, failed.text).toBe(500);
    expect(failed.body.error?.code).toBe("internal_error");
    expect(await balance()).toBe(before);
    expect(await charges(failed.body.request_id)).toBe(0);
    const runsBefore = runs;
    const retried = await work("fail-after-charge-1", { failAfterCharge: true });
    expect(retried.response.status, retried.text).toBe(500);
    expect(runs).toBe(runsBefore + 1);
  });

  it("answers 503 overloaded, charging nothing, when the answer cannot be stored; the retry is charged once", async () => {
    const { idempotency } = platformServer.platform;
    const finish = idempotency.finish;
    let refusals = 1;
    idempotency.finish = (...args) =>
      refusals-- > 0
        ? Promise.reject(new Error("Connection terminated unexpectedly"))
        : finish.apply(idempotency, args);
    const before = await balance();
    try {
      const lost = await work("record-lost-1", { note: "a" });
      expect(lost.response.status, lost.text).toBe(503);
      expect(lost.body.error?.code).toBe("overloaded");
      expect(await balance()).toBe(before);
      expect(await charges(lost.body.request_id)).toBe(0);
    } finally {
      idempotency.finish = finish;
    }
    const retried = await work("record-lost-1", { note: "a" });
    expect(retried.response.status, retried.text).toBe(200);
    expect(retried.response.headers.get("idempotent-replayed")).toBeNull();
    expect(await balance()).toBe((before ?? 0) - 1);
    expect(await charges(retried.body.request_id)).toBe(1);
  });
});

describe("keys are scoped to the account", () => {
  it("runs the same key of another account as a new request", async () => {
    await work("scoped-1", { note: "a" });
    const { key } = await platformServer.platform.accounts.create({ plan: "pro", credits: 5 });
    const response = await fetch(`${server.baseUrl}/work`, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${key.key}`,
        "Content-Type": "application/json",
        "Idempotency-Key": "scoped-1",
      },
      body: JSON.stringify({ note: "a" }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("idempotent-replayed")).toBeNull();
  });
});

describe("a request that runs longer than the key's lock: its key stays locked until it answers", () => {
  let shortLockServer: LoopbackServer;

  beforeAll(async () => {
    const { deps } = platformServer;
    // A one-second lock, renewed every third of a second while the request runs.
    const idempotency = new Idempotency(platformServer.platform.store, { now: () => new Date(), inFlightSeconds: 1 });
    const shortLockDeps = { ...deps, platform: { ...deps.platform, idempotency } };
    const app = express();
    app.use(assignRequestId());
    app.use(express.json());
    app.post("/slow", authenticate(shortLockDeps, "request"), idempotent(shortLockDeps), async (req, res) => {
      runs++;
      await new Promise((resolve) => setTimeout(resolve, (req.body as { delayMs: number }).delayMs));
      const balance = await deps.platform.credits.charge({
        accountId: authOf(res).accountId,
        credits: 1,
        operation: "POST /slow",
        requestId: requestIdOf(res),
      });
      res.status(200).json({ ok: true, request_id: requestIdOf(res), balance });
    });
    app.use(errorHandler(shortLockDeps));
    shortLockServer = await listenOnLoopback(app);
  });
  afterAll(() => shortLockServer.close());

  const slow = (key: string) =>
    fetch(`${shortLockServer.baseUrl}/slow`, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${platformServer.key.key}`,
        "Content-Type": "application/json",
        "Idempotency-Key": key,
      },
      body: JSON.stringify({ delayMs: 3_000 }),
    });

  it("answers 409 to a same-key retry after the lock's own period, and charges once", async () => {
    const before = await balance();
    const first = slow("long-running-1");
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const retry = await slow("long-running-1");
    const retryBody = (await retry.json()) as { error?: { code: string } };
    expect(retry.status, JSON.stringify(retryBody)).toBe(409);
    expect(retryBody.error).toMatchObject({ code: "idempotency_conflict" });
    expect((await first).status).toBe(200);
    expect(await balance()).toBe((before ?? 0) - 1);
  });
});
