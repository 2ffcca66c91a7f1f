import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authenticate } from "../src/http/auth.ts";
import { errorHandler } from "../src/http/error-handler.ts";
import { assignRequestId } from "../src/http/request-id.ts";
import { holdExtractionSlot } from "../src/http/slots.ts";
import { type LoopbackServer, listenOnLoopback } from "./support/listen.ts";
import { startServer, type TestServer } from "./support/server.ts";

// An extraction route that runs until the test lets it finish, mounted behind the real
// authentication and slot middleware over the test server's platform.
let platformServer: TestServer;
let server: LoopbackServer;
const running: Array<() => void> = [];

beforeAll(async () => {
  platformServer = await startServer({ plan: "pro" });
  const app = express();
  app.use(assignRequestId());
  app.get(
    "/extract",
    authenticate(platformServer.deps, "request"),
    holdExtractionSlot(platformServer.deps),
    (_req, res) => {
      running.push(() => res.json({ ok: true }));
    },
  );
  app.use(errorHandler(platformServer.deps));
  server = await listenOnLoopback(app);
});

afterAll(async () => {
  await server.close();
  await platformServer.close();
});

function extract(signal?: AbortSignal): Promise<Response> {
  return fetch(`${server.baseUrl}/extract`, {
    headers: { Authorization: `Bearer ${platformServer.key.key}` },
    ...(signal ? { signal } : {}),
  });
}

async function until(condition: () => Promise<boolean> | boolean): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error("condition not met within 2 s");
}

const inUse = () => platformServer.platform.slots.inUse(platformServer.account.id);

describe("extraction slots over HTTP", () => {
  it("answers 429 rate_limited with Retry-After when the plan's 3 slots are busy, and admits again once one frees", async () => {
    const first = [extract(), extract(), extract()];
    await until(() => running.length === 3);
    expect(await inUse()).toBe(3);

    const refused = await extract();
    const body = (await refused.json()) as { error: { code: string; number: number } };
    expect(refused.status, JSON.stringify(body)).toBe(429);
    expect(body.error).toMatchObject({ code: "rate_limited", number: 2101 });
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);

    running.shift()?.();
    expect((await first[0])?.status).toBe(200);
    await until(async () => (await inUse()) === 2);

    const admitted = extract();
    await until(() => running.length === 3);
    for (const finish of running.splice(0)) finish();
    expect((await admitted).status).toBe(200);
    await Promise.all(first.slice(1));
    await until(async () => (await inUse()) === 0);
  });

  it("gives the slot back when the client disconnects", async () => {
    const controller = new AbortController();
    const abandoned = extract(controller.signal).catch(() => undefined);
    await until(() => running.length === 1);
    expect(await inUse()).toBe(1);
    controller.abort();
    await abandoned;
    await until(async () => (await inUse()) === 0);
    running.splice(0);
  });

  it("answers 503 overloaded with Retry-After, not a 500, when the store fails while the slot is taken", async () => {
    const slots = platformServer.platform.slots;
    const acquire = slots.acquire;
    slots.acquire = () => Promise.reject(new Error("Connection terminated unexpectedly"));
    try {
      const refused = await extract();
      const body = await refused.text();
      expect(refused.status, body).toBe(503);
      expect(JSON.parse(body).error.code).toBe("overloaded");
      expect(refused.headers.get("retry-after")).toBe("5");
    } finally {
      slots.acquire = acquire;
    }
  });
});
