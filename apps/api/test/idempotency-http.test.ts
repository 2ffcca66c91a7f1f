import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authenticate, authOf } from "../src/http/auth.ts";
import { errorHandler } from "../src/http/error-handler.ts";
import { idempotent } from "../src/http/idempotency.ts";
import { requestIdOf } from "../src/http/locals.ts";
import { assignRequestId } from "../src/http/request-id.ts";
import { type LoopbackServer, listenOnLoopback } from "./support/listen.ts";
import { startServer, type TestServer } from "./support/server.ts";

// A billed operation behind the real authentication and Idempotency-Key middleware: it charges
// one credit and answers 200, or the status the body asks for, so every rule of spec 4.9 can be
// driven over HTTP before the transcript endpoints are live.
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
    const { status = 200, delayMs = 0 } = req.body as { status?: number; delayMs?: number };
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    if (status !== 200) {
      res.status(status).json({ ok: false, request_id: requestIdOf(res) });
      return;
    }
    const balance = await deps.platform.credits.charge({
      accountId: authOf(res).accountId,
      credits: 1,
      operation: "POST /work",
      requestId: requestIdOf(res),
    });
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
    expect(await balance()).toBe(before);
  });

  it("answers idempotency_conflict while the first request is still running", async () => {
    const first = work("in-flight-1", { delayMs: 400 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const second = await work("in-flight-1", { delayMs: 400 });
    expect(second.response.status, JSON.stringify(second.body)).toBe(409);
    expect(second.body.error).toMatchObject({ code: "idempotency_conflict" });
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
