import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "./support/server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ now: () => new Date("2026-11-22T10:00:00.000Z") });
});
afterAll(() => server.close());

describe("GET /health: 200", () => {
  it("answers the envelope with the hosted service's top-level fields, without a key", async () => {
    const response = await fetch(`${server.baseUrl}/api/v2/health`);
    const body = (await response.json()) as { request_id: string };
    expect(response.status, JSON.stringify(body)).toBe(200);
    expect(body).toMatchObject({
      ok: true,
      status: "ok",
      service: "verbatim",
      version: "0.0.0-test",
      time: "2026-11-22T10:00:00.000Z",
      data: { kind: "health", status: "ok" },
      usage: { credits_spent: 0, balance: null, bytes: 0 },
    });
    expect(body.request_id).toMatch(/^req_[0-9A-Z]{26}$/);
    expect(response.headers.get("x-request-id")).toBe(body.request_id);
  });

  it("is reachable through the SDK", async () => {
    const { data, response } = await server.client.GET("/health");
    expect(response.status).toBe(200);
    expect(data?.request_id).toBe(response.headers.get("x-request-id"));
  });

  it("gives every request its own id", async () => {
    const [first, second] = await Promise.all([server.client.GET("/health"), server.client.GET("/health")]);
    expect(first.data?.request_id).not.toBe(second.data?.request_id);
  });
});

describe("HEAD on a GET operation: the GET's status and headers, without a body", () => {
  it("answers HEAD /health 200 with the GET's headers and no body", async () => {
    const response = await fetch(`${server.baseUrl}/api/v2/health`, { method: "HEAD" });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(response.headers.get("x-request-id")).toMatch(/^req_[0-9A-Z]{26}$/);
    expect(await response.text()).toBe("");
  });

  it("answers HEAD /me 401 without a key and 200 with one, with the rate-limit headers", async () => {
    const stranger = await fetch(`${server.baseUrl}/api/v2/me`, { method: "HEAD" });
    expect(stranger.status).toBe(401);
    const keyed = await fetch(`${server.baseUrl}/api/v2/me`, {
      method: "HEAD",
      headers: { authorization: `Bearer ${server.key.key}` },
    });
    expect(keyed.status).toBe(200);
    expect(keyed.headers.get("x-ratelimit-limit")).not.toBeNull();
    expect(await keyed.text()).toBe("");
  });
});
