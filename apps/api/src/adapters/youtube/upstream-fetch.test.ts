import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type ConnectProxy, startConnectProxy } from "@verbatim/testkit/connect-proxy";
import { afterEach, describe, expect, it } from "vitest";
import { UpstreamError } from "./upstream-errors.ts";
import { createUpstreamFetch } from "./upstream-fetch.ts";

let server: Server | undefined;
const proxies: ConnectProxy[] = [];

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await Promise.all(proxies.splice(0).map((proxy) => proxy.close()));
});

/** A proxy that records its name for each tunnel it opens. */
async function startProxy(tunnels: string[], name: string): Promise<string> {
  const proxy = await startConnectProxy({ onTunnel: () => tunnels.push(name) });
  proxies.push(proxy);
  return proxy.url;
}

/** A loopback server answering with the statuses given, in turn (the last one repeats). */
async function serve(statuses: number[], seen: string[]): Promise<string> {
  let call = 0;
  server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url} ${req.headers.host}`);
    const status = statuses[Math.min(call++, statuses.length - 1)] ?? 200;
    res.writeHead(status, { "content-type": "application/json" }).end('{"ok":true}');
  });
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const settings = { attemptTimeoutMs: 500, budgetMs: 2000, maxAttempts: 3, backoffBaseMs: 5, random: () => 0.5 };

describe("createUpstreamFetch", () => {
  it("sends www.youtube.com and youtubei.googleapis.com requests to the configured origin, path and query kept", async () => {
    const seen: string[] = [];
    const origin = await serve([200], seen);
    const upstreamFetch = createUpstreamFetch({ origin, ...settings });
    await upstreamFetch("https://www.youtube.com/youtubei/v1/player?prettyPrint=false", { method: "POST", body: "{}" });
    await upstreamFetch(new Request("https://youtubei.googleapis.com/api/timedtext?v=x"));
    expect(seen.map((line) => line.split(" ").slice(0, 2).join(" "))).toEqual([
      "POST /youtubei/v1/player?prettyPrint=false",
      "GET /api/timedtext?v=x",
    ]);
  });

  it("retries a 5xx and answers the later success", async () => {
    const seen: string[] = [];
    const upstreamFetch = createUpstreamFetch({ origin: await serve([503, 500, 200], seen), ...settings });
    const response = await upstreamFetch("https://www.youtube.com/x");
    expect(await response.json()).toEqual({ ok: true });
    expect(seen).toHaveLength(3);
  });

  it("does not retry a 429: it is a block", async () => {
    const seen: string[] = [];
    const upstreamFetch = createUpstreamFetch({ origin: await serve([429], seen), ...settings });
    await expect(upstreamFetch("https://www.youtube.com/x")).rejects.toMatchObject({ kind: "blocked", status: 429 });
    expect(seen).toHaveLength(1);
  });

  it("stops retrying when the budget is spent", async () => {
    const seen: string[] = [];
    const upstreamFetch = createUpstreamFetch({
      origin: await serve([500], seen),
      ...settings,
      maxAttempts: 10,
      backoffBaseMs: 400,
      budgetMs: 500,
      random: () => 0.99,
    });
    await expect(upstreamFetch("https://www.youtube.com/x")).rejects.toBeInstanceOf(UpstreamError);
    expect(seen.length).toBeLessThan(10);
  });

  it("reports a refused connection as a connection failure", async () => {
    const upstreamFetch = createUpstreamFetch({ origin: "http://127.0.0.1:9", ...settings, maxAttempts: 1 });
    await expect(upstreamFetch("https://www.youtube.com/x")).rejects.toMatchObject({ kind: "connection" });
  });

  it("sends each attempt through the next proxy of the list", async () => {
    const seen: string[] = [];
    const tunnels: string[] = [];
    const origin = await serve([500, 200], seen);
    const proxyUrls = [await startProxy(tunnels, "first"), await startProxy(tunnels, "second")];
    const upstreamFetch = createUpstreamFetch({ origin, proxyUrls, ...settings });
    const response = await upstreamFetch("https://www.youtube.com/x");
    expect(response.status).toBe(200);
    expect(tunnels).toEqual(["first", "second"]);
  });
});
