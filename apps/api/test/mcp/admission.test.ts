import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { LATEST_PROTOCOL_VERSION, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Answer, send } from "../support/http.ts";
import { startServer, type TestServer } from "../support/server.ts";
import { serverStartTimeoutMs, startYoutubeServer, type YoutubeTestServer } from "../support/youtube-server.ts";
import {
  callTool,
  connectOverHttp,
  expectToolError,
  type HttpAnswer,
  registerVideos,
  surfaceGo,
} from "./mcp-client.ts";

// A clock that stands still unless a test moves it: the sliding minute ends only when a test says so.
const start = Date.parse("2026-05-01T10:00:00.000Z");
let time = start;

let yt: YoutubeTestServer;
let tools: Tool[];

beforeAll(async () => {
  yt = await startYoutubeServer({ credits: 100, now: () => new Date(time) });
  registerVideos(yt);
  const mcp = await connectOverHttp(yt.server.baseUrl, yt.server.key.key);
  tools = (await mcp.listTools()).tools;
  await mcp.close();
}, serverStartTimeoutMs);

afterAll(async () => {
  await yt?.close();
});

/** A new Free account (10 requests and 120 polls a minute) and an MCP client with its key, recording each HTTP answer. */
async function freeAccount() {
  const { account, key } = await yt.server.platform.accounts.create({ plan: "free", credits: 100, name: "mcp" });
  const answers: HttpAnswer[] = [];
  const mcp = await connectOverHttp(yt.server.baseUrl, key.key, { answers });
  return {
    key: key.key,
    mcp,
    balance: () => yt.server.platform.credits.balance(account.id),
    lastAnswer: () => answers.at(-1) as HttpAnswer,
  };
}

/** A raw `POST /mcp` of `messages` with `key`, as an MCP client sends it after `initialize`. */
function post(key: string, messages: unknown): Promise<Answer> {
  return send(yt.server, {
    method: "POST",
    path: "/mcp",
    json: messages,
    headers: {
      authorization: `Bearer ${key}`,
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": LATEST_PROTOCOL_VERSION,
    },
  });
}

/** The account's request allowance as `GET /me` shows it, and what remains of its polling allowance after that poll. */
async function allowancesOf(key: string): Promise<{ requestsLeft: number; pollsLeft: number }> {
  const me = await yt.server.clientFor(key).GET("/me");
  expect(me.response.status, JSON.stringify(me.data ?? me.error)).toBe(200);
  return {
    requestsLeft: me.data?.data.rate_limit.remaining as number,
    pollsLeft: Number(me.response.headers.get("x-ratelimit-remaining")),
  };
}

/** Asserts the failure of an MCP client call refused with HTTP 429, and answers the JSON-RPC error it carried. */
async function expectRefused(call: Promise<unknown>): Promise<Record<string, unknown>> {
  const failure = await call.then(
    (result) => {
      throw new Error(`expected a 429, got ${JSON.stringify(result)}`);
    },
    (error: unknown) => error,
  );
  expect(failure, String(failure)).toBeInstanceOf(StreamableHTTPError);
  expect((failure as StreamableHTTPError).code, String(failure)).toBe(429);
  const body = String((failure as Error).message).replace(/^.*?Error POSTing to endpoint: /s, "");
  return JSON.parse(body) as Record<string, unknown>;
}

function rateLimitOf(answer: { headers: Headers }) {
  return {
    limit: answer.headers.get("x-ratelimit-limit"),
    remaining: answer.headers.get("x-ratelimit-remaining"),
    retryAfter: answer.headers.get("retry-after"),
  };
}

describe("429 rate_limited: tool calls count against the request allowance", () => {
  it("answers a Free key's 11th tool call in a minute with HTTP 429, Retry-After and a JSON-RPC error, running nothing", async () => {
    const free = await freeAccount();
    for (let call = 1; call <= 10; call++) {
      const result = await callTool(free.mcp, tools, "get_transcript", { video: surfaceGo });
      expect(result.isError, JSON.stringify(result)).toBeFalsy();
      expect(rateLimitOf(free.lastAnswer())).toMatchObject({ limit: "10", remaining: String(10 - call) });
    }
    expect(await free.balance()).toBe(100 - 10);

    const refused = await expectRefused(free.mcp.callTool({ name: "get_transcript", arguments: { video: surfaceGo } }));
    expect(refused).toMatchObject({
      jsonrpc: "2.0",
      id: expect.any(Number),
      error: {
        code: -32000,
        message: "The request allowance of 10 per minute is used up. Retry after 60 seconds.",
        data: {
          code: "rate_limited",
          number: 2101,
          retry_after: 60,
          docs: `${yt.server.baseUrl}/docs/errors/rate_limited`,
        },
      },
    });
    expect(free.lastAnswer().status).toBe(429);
    expect(rateLimitOf(free.lastAnswer())).toEqual({ limit: "10", remaining: "0", retryAfter: "60" });

    const raw = await post(free.key, {
      jsonrpc: "2.0",
      id: "call-11",
      method: "tools/call",
      params: { name: "get_transcript", arguments: { video: surfaceGo } },
    });
    expect(raw.status, raw.text).toBe(429);
    expect(raw.headers.get("retry-after")).toBe("60");
    expect(raw.body).toMatchObject({ jsonrpc: "2.0", id: "call-11", error: { data: { code: "rate_limited" } } });
    expect(await free.balance(), "the refused calls charged nothing").toBe(100 - 10);
    await free.mcp.close();
  });

  it("counts calls that never reach the API, with arguments the tool refuses or a tool it does not have", async () => {
    const free = await freeAccount();
    for (let call = 0; call < 5; call++) {
      expectToolError(
        await callTool(free.mcp, tools, "get_transcript", { video: surfaceGo, format: "srt" }),
        "invalid_request",
      );
      await expect(free.mcp.callTool({ name: "delete_account", arguments: {} })).rejects.toThrow(/Unknown tool/);
    }
    expect((await allowancesOf(free.key)).requestsLeft).toBe(0);
    await expectRefused(free.mcp.callTool({ name: "get_transcript", arguments: { video: surfaceGo } }));
    await free.mcp.close();
  });

  it("counts a tool call once: at /mcp, not again by the API request it makes", async () => {
    const free = await freeAccount();
    const pollsAfterConnecting = Number(free.lastAnswer().headers.get("x-ratelimit-remaining"));
    expect(pollsAfterConnecting, "initialize and its notification").toBe(120 - 2);

    await callTool(free.mcp, tools, "get_transcript", { video: surfaceGo });
    expect(rateLimitOf(free.lastAnswer())).toMatchObject({ limit: "10", remaining: "9" });
    const afterTranscript = await allowancesOf(free.key);
    expect(afterTranscript.requestsLeft, "one get_transcript").toBe(9);

    const credits = await callTool(free.mcp, tools, "get_credits");
    expect(credits.structuredContent.rate_limit).toMatchObject({ limit: 10, remaining: 9 });
    expect(rateLimitOf(free.lastAnswer()), "get_credits counts one poll").toMatchObject({
      limit: "120",
      remaining: String(afterTranscript.pollsLeft - 1),
    });
    expect(await allowancesOf(free.key)).toEqual({ requestsLeft: 9, pollsLeft: afterTranscript.pollsLeft - 2 });
    await free.mcp.close();
  });
});

describe("429 rate_limited: protocol messages count against the polling allowance", () => {
  it("serves tools/list and ping once the request allowance is spent, until the polling allowance is spent too", async () => {
    const free = await freeAccount();
    for (let call = 0; call < 10; call++) {
      expectToolError(await callTool(free.mcp, tools, "get_transcript", { video: "" }), "invalid_request");
    }
    await expectRefused(free.mcp.callTool({ name: "get_transcript", arguments: { video: surfaceGo } }));

    const credits = await callTool(free.mcp, tools, "get_credits");
    expect(credits.structuredContent.rate_limit, "get_credits is a poll").toMatchObject({ remaining: 0 });
    expect((await free.mcp.listTools()).tools).toHaveLength(11);
    let pings = 0;
    const refused = await expectRefused(
      (async () => {
        for (;;) {
          await free.mcp.ping();
          pings++;
        }
      })(),
    );
    expect(pings, "120 polls: initialize, its notification, get_credits, tools/list and the pings").toBe(120 - 4);
    expect(refused).toMatchObject({
      error: { message: "The polling allowance of 120 per minute is used up. Retry after 60 seconds." },
    });
    expect(rateLimitOf(free.lastAnswer())).toEqual({ limit: "120", remaining: "0", retryAfter: "60" });

    time += 60_000;
    expect((await free.mcp.listTools()).tools, "a minute later").toHaveLength(11);
    expect((await callTool(free.mcp, tools, "get_transcript", { video: surfaceGo })).isError).toBeFalsy();
    await free.mcp.close();
  });

  it("counts each message of a batch, and refuses the whole batch when one is over the allowance", async () => {
    const free = await freeAccount();
    const before = await allowancesOf(free.key);
    const batch = await post(free.key, [
      { jsonrpc: "2.0", id: 1, method: "ping" },
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
      { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "get_credits", arguments: {} } },
      { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 99 } },
    ]);
    expect(batch.status, batch.text).toBe(200);
    expect((batch.body as Array<{ id: number }>).map((answer) => answer.id).sort()).toEqual([1, 2, 3]);
    expect(await allowancesOf(free.key), "four polls, then this one").toEqual({
      requestsLeft: 10,
      pollsLeft: before.pollsLeft - 5,
    });

    const calls = Array.from({ length: 11 }, (_, index) => ({
      jsonrpc: "2.0",
      id: index,
      method: "tools/call",
      params: { name: "get_transcript", arguments: { video: "" } },
    }));
    const refused = await post(free.key, calls);
    expect(refused.status, refused.text).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("60");
    expect(refused.body).toEqual(
      calls.map((call) => ({
        jsonrpc: "2.0",
        id: call.id,
        error: expect.objectContaining({ data: expect.objectContaining({ code: "rate_limited" }) }),
      })),
    );
    expect((await allowancesOf(free.key)).requestsLeft, "the ten calls counted before the refusal").toBe(0);
    await free.mcp.close();
  });
});

describe("403 for a foreign Origin", () => {
  const foreign = "https://attacker.example";

  it("refuses a foreign Origin with 403 and a JSON-RPC error before the key is read, so the client cannot connect", async () => {
    const answer = await send(yt.server, {
      method: "POST",
      path: "/mcp",
      authorized: false,
      json: { jsonrpc: "2.0", id: 1, method: "tools/list" },
      headers: { accept: "application/json, text/event-stream", origin: foreign },
    });
    expect(answer.status, answer.text).toBe(403);
    expect(answer.body).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32000, message: expect.stringContaining(`Origin ${foreign} may not use this MCP server`) },
    });
    const failure = await connectOverHttp(yt.server.baseUrl, yt.server.key.key, { headers: { Origin: foreign } }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure, String(failure)).toBeInstanceOf(StreamableHTTPError);
    expect((failure as StreamableHTTPError).code).toBe(403);
  });

  it("serves a client that sends no Origin, and a page of the server's own origin", async () => {
    const noOrigin = await connectOverHttp(yt.server.baseUrl, yt.server.key.key);
    expect((await noOrigin.listTools()).tools).toHaveLength(11);
    await noOrigin.close();
    const answers: HttpAnswer[] = [];
    const sameOrigin = await connectOverHttp(yt.server.baseUrl, yt.server.key.key, {
      headers: { Origin: yt.server.baseUrl },
      answers,
    });
    expect((await sameOrigin.listTools()).tools).toHaveLength(11);
    expect(answers.every((answer) => answer.status !== 403)).toBe(true);
    await sameOrigin.close();
  });

  it("refuses, without VERBATIM_PUBLIC_URL, a page whose Origin names the request's Host: a rebound DNS name", async () => {
    const port = new URL(yt.server.baseUrl).port;
    const rebound = `http://rebound.attacker.example:${port}`;
    const answer = await send(yt.server, {
      method: "POST",
      path: "/mcp",
      json: { jsonrpc: "2.0", id: 1, method: "tools/list" },
      headers: {
        accept: "application/json, text/event-stream",
        origin: rebound,
        host: `rebound.attacker.example:${port}`,
      },
    });
    expect(answer.status, answer.text).toBe(403);
    for (const loopback of [`http://localhost:${port}`, `http://127.0.0.1:${port}`]) {
      const served = await send(yt.server, {
        method: "POST",
        path: "/mcp",
        json: { jsonrpc: "2.0", id: 1, method: "ping" },
        headers: { accept: "application/json, text/event-stream", origin: loopback },
      });
      expect(served.status, `${loopback}: ${served.text}`).not.toBe(403);
    }
  });

  describe("with VERBATIM_PUBLIC_URL and VERBATIM_MCP_ALLOWED_ORIGINS set", () => {
    const publicUrl = "https://verbatim.example";
    const listed = "https://inspector.example";
    let configured: TestServer;
    beforeAll(async () => {
      configured = await startServer({
        deps: { config: { version: "0.0.0-test", publicUrl, mcpAllowedOrigins: [listed] } },
      });
    }, serverStartTimeoutMs);
    afterAll(() => configured?.close());

    it.each([
      ["the public address", publicUrl],
      ["a listed origin", listed],
      ["a listed origin, written with its default port", "https://inspector.example:443"],
    ])("serves %s", async (_name, origin) => {
      const mcp = await connectOverHttp(configured.baseUrl, configured.key.key, { headers: { Origin: origin } });
      expect((await mcp.listTools()).tools).toHaveLength(11);
      await mcp.close();
    });

    it.each([
      ["the address the request came to, which a rebound DNS name also reaches", () => configured.baseUrl],
      ["an origin that is not listed", () => foreign],
      ["a sandboxed page's null origin", () => "null"],
    ])("refuses %s with 403", async (_name, origin) => {
      const answer = await send(configured, {
        method: "POST",
        path: "/mcp",
        json: { jsonrpc: "2.0", id: 1, method: "tools/list" },
        headers: { accept: "application/json, text/event-stream", origin: origin() },
      });
      expect(answer.status, answer.text).toBe(403);
    });
  });
});
