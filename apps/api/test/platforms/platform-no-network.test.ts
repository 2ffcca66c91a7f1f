import { createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Loose } from "../audio/requests.ts";
import { jobServiceEnvironment, request, type ServiceClient } from "../audio/service-process.ts";
import { testEngine } from "../support/store.ts";
import {
  type ApiService,
  type ServiceStorage,
  serviceStartTimeoutMs,
  serviceStorage,
  startApiService,
} from "./platform-service.ts";

// No network: VERBATIM_PROXY_URLS names a loopback port nothing listens on, so every upstream
// connection, YouTube's and the other platforms' alike, is refused. A client is told the same
// thing whichever platform it asked for: `connection`, free, retry later.

/** A loopback port that was free a moment ago and that nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening));
  const { port } = server.address() as { port: number };
  await new Promise((closed) => server.close(closed));
  return port;
}

let storage: ServiceStorage;
let api: ApiService;
let client: ServiceClient;

beforeAll(async () => {
  storage = await serviceStorage();
  api = await startApiService({
    ...jobServiceEnvironment,
    ...storage.env,
    VERBATIM_ALLOW_PRIVATE_TARGETS: "0",
    VERBATIM_PROXY_URLS: `http://127.0.0.1:${await closedPort()}`,
    VERBATIM_UPSTREAM_TIMEOUT_MS: "2000",
    VERBATIM_UPSTREAM_BUDGET_MS: "5000",
  });
  client = api.client;
}, serviceStartTimeoutMs);

afterAll(async () => {
  await api?.service.kill("SIGKILL");
  await storage?.remove();
});

describe(`an unreachable network through VERBATIM_PROXY_URLS (${testEngine})`, () => {
  it("answers a TikTok link and a YouTube video alike: 503 connection (5003), nothing charged", async () => {
    const before = await request(client, "GET", "/api/v2/me");
    const [tiktok, youtube] = await Promise.all(
      ["https://www.tiktok.com/@verbatim.tests/video/7400000000000000001", "dQw4w9WgXcQ"].map((video) =>
        request(client, "POST", "/api/v2/transcripts/video", { video }),
      ),
    );
    for (const answer of [tiktok, youtube]) {
      expect(answer.http_status, JSON.stringify(answer)).toBe(503);
      expect(answer.error).toMatchObject({ code: "connection", number: 5003 });
      expect(answer.error.message).toMatch(/Nothing was charged; retry with backoff\.$/);
    }
    expect(tiktok.error.message).toMatch(/^The connection to TikTok failed/);
    expect(youtube.error.message).toMatch(/^The connection to YouTube failed/);
    const after = await request(client, "GET", "/api/v2/me");
    expect((after as Loose).data.credits).toBe((before as Loose).data.credits);
  }, 60_000);
});
