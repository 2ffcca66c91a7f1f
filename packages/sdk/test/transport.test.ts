import { afterEach, describe, expect, it, vi } from "vitest";
import {
  AccountError,
  ConnectionError,
  RequestError,
  sdkVersion,
  TimeoutError,
  TransientError,
  UnexpectedResponseError,
  Verbatim,
} from "../src/index.ts";
import { backoffMs } from "../src/transport.ts";
import { errorEnvelope, type Fault, FaultServer, meEnvelope } from "./support/fault-server.ts";

let server: FaultServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
  vi.unstubAllEnvs();
});

async function clientFacing(script: Fault[], options: ConstructorParameters<typeof Verbatim>[0] = {}) {
  server = await FaultServer.start(script);
  return { verbatim: new Verbatim({ apiKey: "vb_live_test", baseUrl: server.baseUrl, ...options }), server };
}

const ok: Fault = { status: 200, headers: { "x-request-id": "req_ok" }, body: meEnvelope("req_ok") };
const batchOk: Fault = {
  status: 200,
  headers: { "x-request-id": "req_batch" },
  body: {
    ok: true,
    request_id: "req_batch",
    data: { kind: "transcript_batch", results: [] },
    usage: { credits_spent: 0, balance: 1, bytes: 0 },
  },
};
const unavailable: Fault = { status: 503, body: errorEnvelope("upstream_unavailable", 5005) };

describe("retries", () => {
  it("retries a 503 twice and answers the third attempt's result", async () => {
    const { verbatim, server } = await clientFacing([unavailable, unavailable, ok]);
    const me = await verbatim.me();
    expect(me.data.user_id).toBe("acct_test");
    expect(me.requestId).toBe("req_ok");
    expect(server.requests).toHaveLength(3);
  });

  it("sends one generated Idempotency-Key with every attempt of a POST, and another for the next call", async () => {
    const { verbatim, server } = await clientFacing([unavailable, { status: 502, body: "bad gateway" }, batchOk]);
    await verbatim.transcripts.batch({ video_ids: ["jNQXAC9IVRw"] });
    await verbatim.transcripts.batch({ video_ids: ["jNQXAC9IVRw"] });
    const keys = server.requests.map((request) => request.headers["idempotency-key"]);
    expect(keys).toHaveLength(4);
    expect(new Set(keys.slice(0, 3)).size).toBe(1);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[3]).not.toBe(keys[0]);
    expect(server.requests.every((request) => request.body === '{"video_ids":["jNQXAC9IVRw"]}')).toBe(true);
  });

  it("uses the caller's Idempotency-Key, and sends none with a GET", async () => {
    const { verbatim, server } = await clientFacing([batchOk]);
    await verbatim.transcripts.batch({ video_ids: ["a"] }, { idempotencyKey: "order-42" });
    await verbatim.me();
    expect(server.requests.map((request) => request.headers["idempotency-key"])).toEqual(["order-42", undefined]);
  });

  it("waits the Retry-After of a 429 before retrying", async () => {
    const limited: Fault = { status: 429, headers: { "retry-after": "1" }, body: errorEnvelope("rate_limited", 2101) };
    const { verbatim, server } = await clientFacing([limited, ok]);
    await verbatim.me();
    const [first, second] = server.requests;
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(950);
  });

  it("retries a 409 still running after its Retry-After, with the same key, and answers the replay", async () => {
    const stillRunning: Fault = {
      status: 409,
      headers: { "retry-after": "1" },
      body: errorEnvelope("idempotency_conflict", 1201),
    };
    const replayed: Fault = { ...batchOk, headers: { ...batchOk.headers, "idempotent-replayed": "true" } };
    const { verbatim, server } = await clientFacing([unavailable, stillRunning, replayed]);
    const result = await verbatim.transcripts.batch({ video_ids: ["jNQXAC9IVRw"] });
    expect(result.replayed).toBe(true);
    const [, second, third] = server.requests;
    expect((third?.at ?? 0) - (second?.at ?? 0)).toBeGreaterThanOrEqual(950);
    expect(new Set(server.requests.map((request) => request.headers["idempotency-key"])).size).toBe(1);
  });

  it("does not retry a 409 without Retry-After: the key was used with another body", async () => {
    const conflict: Fault = { status: 409, body: errorEnvelope("idempotency_conflict", 1201) };
    const { verbatim, server } = await clientFacing([conflict, batchOk]);
    const error = await verbatim.transcripts
      .batch({ video_ids: ["a"] }, { idempotencyKey: "order-42" })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ status: 409, code: "idempotency_conflict", retryable: false });
    expect(server.requests).toHaveLength(1);
  });

  it("answers a Retry-After over a minute to the caller instead of waiting, as an AccountError with retryAfter", async () => {
    const limited: Fault = {
      status: 429,
      headers: { "retry-after": "120" },
      body: errorEnvelope("rate_limited", 2101),
    };
    const { verbatim, server } = await clientFacing([limited, ok]);
    const error = await verbatim.me().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AccountError);
    expect(error).toMatchObject({ status: 429, code: "rate_limited", number: 2101, retryAfter: 120, retryable: true });
    expect(server.requests).toHaveLength(1);
  });

  it("gives up after maxRetries and throws the last answer's error", async () => {
    const { verbatim, server } = await clientFacing([unavailable], { maxRetries: 1 });
    const error = await verbatim.me().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TransientError);
    expect(error).toMatchObject({ status: 503, code: "upstream_unavailable", number: 5005, retryable: true });
    expect(server.requests).toHaveLength(2);
  });

  it("does not retry a 400, and carries its issues", async () => {
    const issues = [{ path: "/body/video", message: "must NOT have fewer than 1 characters" }];
    const invalid: Fault = {
      status: 400,
      headers: { "x-request-id": "req_bad" },
      body: errorEnvelope("invalid_request", 1001, { issues }),
    };
    const { verbatim, server } = await clientFacing([invalid]);
    const error = await verbatim.transcripts.video({ video: "" }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestError);
    expect(error).toMatchObject({
      status: 400,
      code: "invalid_request",
      number: 1001,
      message: "invalid_request happened",
      docs: "http://127.0.0.1/docs/errors/invalid_request",
      requestId: "req_bad",
      issues,
      retryable: false,
      retryWith: null,
      details: null,
    });
    expect(server.requests).toHaveLength(1);
  });

  it("sends a string given to transcripts.video as the request's video", async () => {
    const { verbatim, server } = await clientFacing([{ status: 400, body: errorEnvelope("invalid_request", 1001) }]);
    await verbatim.transcripts.video("https://youtu.be/jNQXAC9IVRw").catch(() => undefined);
    expect(JSON.parse(server.requests[0]?.body ?? "null")).toEqual({ video: "https://youtu.be/jNQXAC9IVRw" });
  });

  it("maps a code newer than the SDK to the family of its number", async () => {
    const { verbatim } = await clientFacing([{ status: 503, body: errorEnvelope("brand_new_outage", 5999) }], {
      maxRetries: 0,
    });
    const error = await verbatim.me().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TransientError);
    expect(error).toMatchObject({ code: "brand_new_outage", number: 5999 });
  });

  it("throws UnexpectedResponseError for an answer without the error envelope, after retrying it", async () => {
    const { verbatim, server } = await clientFacing([{ status: 502, body: "<html>bad gateway</html>" }], {
      maxRetries: 1,
    });
    const error = await verbatim.me().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UnexpectedResponseError);
    expect(error).toMatchObject({ status: 502, retryable: true });
    expect(server.requests).toHaveLength(2);
  });
});

describe("connection failures", () => {
  it("retries a reset connection and answers the retry's result", async () => {
    const { verbatim, server } = await clientFacing(["reset", ok]);
    expect((await verbatim.me()).data.kind).toBe("me");
    expect(server.requests).toHaveLength(2);
  });

  it("throws ConnectionError once every attempt was reset", async () => {
    const { verbatim, server } = await clientFacing(["reset"], { maxRetries: 2 });
    const error = await verbatim.me().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).not.toBeInstanceOf(TimeoutError);
    expect(server.requests).toHaveLength(3);
  });

  it("throws ConnectionError for a server that is not there", async () => {
    server = await FaultServer.start([ok]);
    const gone = server.baseUrl;
    await server.close();
    server = undefined;
    const verbatim = new Verbatim({ apiKey: "vb_live_test", baseUrl: gone, maxRetries: 0 });
    await expect(verbatim.me()).rejects.toBeInstanceOf(ConnectionError);
  });

  it("times out a silent server after `timeout` per attempt, retrying, then throws TimeoutError", async () => {
    const { verbatim, server } = await clientFacing(["silence"], { timeout: 200, maxRetries: 1 });
    const started = Date.now();
    const error = await verbatim.me().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(server.requests).toHaveLength(2);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("times out an answer whose body stalls, and a per-call timeout overrides the client's", async () => {
    const { verbatim, server } = await clientFacing(["stall-body", ok], { timeout: 60_000 });
    const me = await verbatim.me({ timeout: 200 });
    expect(me.data.kind).toBe("me");
    expect(server.requests).toHaveLength(2);
  });
});

describe("abort", () => {
  it("rejects with the signal's reason as soon as it aborts, without retrying", async () => {
    const { verbatim, server } = await clientFacing(["silence"]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("the user left")), 100);
    await expect(verbatim.me({ signal: controller.signal })).rejects.toThrow("the user left");
    expect(server.requests).toHaveLength(1);
  });

  it("aborts a raw call with the signal given to openapi-fetch", async () => {
    const { verbatim, server } = await clientFacing(["silence"]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("the raw caller left")), 100);
    await expect(verbatim.raw.GET("/me", { signal: controller.signal })).rejects.toThrow("the raw caller left");
    expect(server.requests).toHaveLength(1);
  });

  it("rejects during the wait before a retry", async () => {
    const limited: Fault = { status: 429, headers: { "retry-after": "30" }, body: errorEnvelope("rate_limited", 2101) };
    const { verbatim, server } = await clientFacing([limited, ok]);
    const started = Date.now();
    await expect(verbatim.me({ signal: AbortSignal.timeout(200) })).rejects.toMatchObject({ name: "TimeoutError" });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(server.requests).toHaveLength(1);
  });
});

describe("headers and configuration", () => {
  it("sends verbatim-node/<version> as User-Agent and the key as a bearer token", async () => {
    const { verbatim, server } = await clientFacing([ok]);
    await verbatim.me();
    expect(server.requests[0]?.headers).toMatchObject({
      "user-agent": `verbatim-node/${sdkVersion}`,
      authorization: "Bearer vb_live_test",
    });
    expect(sdkVersion).toMatch(/^\d+\.\d+\.\d+/);
  });

  it("sends one value per header name: a call's own header over the client's, whatever their case", async () => {
    const { verbatim, server } = await clientFacing([ok, ok], {
      defaultHeaders: { "X-Trace": "from-client", authorization: "Bearer vb_live_default" },
    });
    await verbatim.me();
    await verbatim.raw.GET("/me", { headers: { "x-trace": "from-call" } });
    expect(server.requests.map((request) => [request.headers["x-trace"], request.headers.authorization])).toEqual([
      ["from-client", "Bearer vb_live_test"],
      ["from-call", "Bearer vb_live_test"],
    ]);
  });

  it("reads the key from VERBATIM_API_KEY and the server from VERBATIM_BASE_URL", async () => {
    server = await FaultServer.start([ok]);
    vi.stubEnv("VERBATIM_API_KEY", "vb_live_from_env");
    vi.stubEnv("VERBATIM_BASE_URL", `${server.baseUrl}/`);
    const verbatim = new Verbatim();
    await verbatim.me();
    expect(verbatim.baseUrl).toBe(`${server.baseUrl}/api/v2`);
    expect(server.requests[0]).toMatchObject({
      path: "/api/v2/me",
      headers: { authorization: "Bearer vb_live_from_env" },
    });
  });

  it("reports the rate-limit headers and a replay", async () => {
    const replayed: Fault = {
      status: 200,
      headers: {
        "x-request-id": "req_again",
        "x-ratelimit-limit": "300",
        "x-ratelimit-remaining": "297",
        "x-ratelimit-reset": "1764000000",
        "idempotent-replayed": "true",
      },
      body: meEnvelope("req_again"),
    };
    const { verbatim } = await clientFacing([replayed]);
    const me = await verbatim.me();
    expect(me).toMatchObject({
      requestId: "req_again",
      rateLimit: { limit: 300, remaining: 297, reset: 1764000000 },
      replayed: true,
      httpStatus: 200,
      usage: { credits_spent: 0, balance: 10, bytes: 0 },
    });
    expect(me).not.toHaveProperty("ok");
  });

  it("refuses a negative maxRetries and a zero timeout", () => {
    expect(() => new Verbatim({ maxRetries: -1 })).toThrow("maxRetries");
    expect(() => new Verbatim({ timeout: 0 })).toThrow("timeout");
  });
});

describe("backoff", () => {
  it("draws a full-jitter wait under a ceiling that doubles from 500 ms up to 8 s", () => {
    expect(backoffMs(0, () => 0)).toBe(0);
    expect(backoffMs(0, () => 0.999)).toBe(500);
    expect(backoffMs(1, () => 0.5)).toBe(500);
    expect(backoffMs(3, () => 1)).toBe(4_000);
    expect(backoffMs(10, () => 1)).toBe(8_000);
  });
});
