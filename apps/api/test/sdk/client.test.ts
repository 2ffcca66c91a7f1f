import { AccountError, ApiError, RequestError, TimeoutError, Verbatim, type VerbatimOptions } from "@verbatim/sdk";
import sdkPackage from "@verbatim/sdk/package.json" with { type: "json" };
import { type ProxiedRequest, type RecordingProxy, startRecordingProxy } from "@verbatim/testkit/recording-proxy";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { plans, pollsPerMinute } from "../../src/services/accounts/plans.ts";
import { sdkFor } from "../support/sdk.ts";
import { serverStartTimeoutMs, startYoutubeServer, type YoutubeTestServer } from "../support/youtube-server.ts";

// The client-wide calls of the SDK over real HTTP, through a recording proxy that shows what the
// server received and answered.

const surfaceGo = "GJLlxj_dtq8";
/** A video whose player call YouTube never answers: the request stays in flight until aborted. */
const hanging = "authoredHG1";

let yt: YoutubeTestServer;
let proxy: RecordingProxy;

beforeAll(async () => {
  yt = await startYoutubeServer({ credits: 1000 });
  yt.fake.serveRecordedVideos().player(hanging, { hang: true });
  proxy = await startRecordingProxy(yt.server.baseUrl);
}, serverStartTimeoutMs);
afterAll(async () => {
  await proxy?.close();
  await yt?.close();
});
afterEach(() => {
  vi.unstubAllEnvs();
});

/** The SDK with the test account's key, reaching the server through the proxy. */
function viaProxy(options: VerbatimOptions = {}): Verbatim {
  return sdkFor(yt.server, { baseUrl: proxy.baseUrl, ...options });
}

function lastProxied(): ProxiedRequest {
  const request = proxy.requests.at(-1);
  if (!request) throw new Error("nothing reached the proxy");
  return request;
}

/** The rejection of a call that must fail. */
async function rejectionOf(call: Promise<unknown>): Promise<unknown> {
  return call.then(
    (value) => {
      throw new Error(`expected a rejection, got ${JSON.stringify(value)}`);
    },
    (error: unknown) => error,
  );
}

describe("200: me, usage and health", () => {
  it("me() answers the account with the envelope's data and usage, and the response's request id, allowance and status", async () => {
    const me = await viaProxy().me();
    const { answerHeaders, path } = lastProxied();
    expect(path).toBe("/api/v2/me");
    expect(me.data).toMatchObject({ kind: "me", user_id: yt.server.account.id, plan: "pro", credits: 1000 });
    expect(me.usage).toEqual({ credits_spent: 0, balance: 1000, bytes: 0 });
    expect(me.requestId).toMatch(/^req_[0-9A-Z]{26}$/);
    expect(me.requestId).toBe(answerHeaders["x-request-id"]);
    expect(me.rateLimit).toEqual({
      limit: Number(answerHeaders["x-ratelimit-limit"]),
      remaining: Number(answerHeaders["x-ratelimit-remaining"]),
      reset: Number(answerHeaders["x-ratelimit-reset"]),
    });
    expect(me.rateLimit?.limit).toBe(pollsPerMinute(plans.pro));
    expect(me.rateLimit?.remaining).toBeLessThan(pollsPerMinute(plans.pro));
    expect(me.httpStatus).toBe(200);
    expect(me.replayed).toBe(false);
    expect(me).not.toHaveProperty("ok");
    expect(me).not.toHaveProperty("request_id");
  });

  it("sends User-Agent verbatim-node/<the SDK package's version> as the server receives it", async () => {
    await viaProxy().me();
    expect(lastProxied().headers["user-agent"]).toBe(`verbatim-node/${sdkPackage.version}`);
  });

  it("usage() reports what a charged transcript cost, and usage({from, to}) only the days asked for", async () => {
    const verbatim = viaProxy();
    const transcript = await verbatim.transcripts.video({ video: surfaceGo });
    expect(transcript.usage.credits_spent).toBe(1);

    const usage = await verbatim.usage();
    expect(lastProxied().path).toBe("/api/v2/usage");
    const today = new Date().toISOString().slice(0, 10);
    expect(usage.data).toMatchObject({ kind: "usage", to: today, credits_spent: 1, balance: 999 });
    expect(usage.data.endpoints).toEqual([{ endpoint: "POST /transcripts/video", credits_spent: 1, requests: 1 }]);
    expect(usage.data.days.at(-1)).toMatchObject({ date: today, credits_spent: 1 });
    expect(usage.usage).toEqual({ credits_spent: 0, balance: 999, bytes: 0 });

    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const before = await verbatim.usage({ from: yesterday, to: yesterday });
    expect(lastProxied().path).toBe(`/api/v2/usage?from=${yesterday}&to=${yesterday}`);
    expect(before.data).toMatchObject({ from: yesterday, to: yesterday, credits_spent: 0, endpoints: [] });
    expect(before.data.days).toHaveLength(1);
  });

  it("health() needs no key and reports the service, with no allowance", async () => {
    vi.stubEnv("VERBATIM_API_KEY", undefined);
    const health = await new Verbatim({ baseUrl: proxy.baseUrl }).health();
    expect(lastProxied().headers.authorization).toBeUndefined();
    expect(health).toMatchObject({ status: "ok", service: "verbatim", version: "0.0.0-test" });
    expect(health.data).toMatchObject({ kind: "health", status: "ok" });
    expect(health.requestId).toBe(lastProxied().answerHeaders["x-request-id"]);
    expect(health.rateLimit).toBeNull();
  });

  it("deepHealth() reports each dependency the server has checked now", async () => {
    const deep = await viaProxy().deepHealth();
    expect(lastProxied().path).toBe("/api/v2/health/deep");
    expect(deep.data).toMatchObject({ kind: "health_deep", status: "ok", version: "0.0.0-test" });
    expect(deep.data.checks).toEqual([
      { name: "database", status: "ok", latency_ms: expect.any(Number), detail: null },
      // No job is queued, so no worker needs to have reported.
      { name: "workers", status: "ok", latency_ms: expect.any(Number), detail: null },
    ]);
    expect(deep.data.queues.map((queue) => queue.name)).toContain("transcribe-audio");
    expect(deep.rateLimit?.limit).toBe(pollsPerMinute(plans.pro));
  });
});

describe("configuration from the environment", () => {
  it("takes the key from VERBATIM_API_KEY and the server from VERBATIM_BASE_URL when the options leave them out", async () => {
    vi.stubEnv("VERBATIM_API_KEY", yt.server.key.key);
    vi.stubEnv("VERBATIM_BASE_URL", `${proxy.baseUrl}/`);
    const verbatim = new Verbatim();
    expect(verbatim.baseUrl).toBe(`${proxy.baseUrl}/api/v2`);
    const me = await verbatim.me();
    expect(me.data.user_id).toBe(yt.server.account.id);
    expect(lastProxied().headers.authorization).toBe(`Bearer ${yt.server.key.key}`);
  });

  it("prefers the options to the environment", async () => {
    vi.stubEnv("VERBATIM_API_KEY", "vb_live_from_the_environment");
    vi.stubEnv("VERBATIM_BASE_URL", "http://127.0.0.1:9");
    const me = await viaProxy().me();
    expect(me.data.user_id).toBe(yt.server.account.id);
  });
});

describe("errors: the family class of the answered code", () => {
  it("401: a bad key throws RequestError unauthorized with status, number, message, docs and request id", async () => {
    const error = await rejectionOf(viaProxy({ apiKey: "vb_live_not_a_key_of_this_server" }).me());
    expect(error).toBeInstanceOf(RequestError);
    expect(error).toBeInstanceOf(ApiError);
    const answered = JSON.parse(lastProxied().answer) as { error: { message: string } };
    expect(error).toMatchObject({
      name: "RequestError",
      status: 401,
      code: "unauthorized",
      number: 1101,
      message: answered.error.message,
      requestId: lastProxied().answerHeaders["x-request-id"],
      retryable: false,
    });
    expect((error as RequestError).message).toMatch(/\S/);
    expect(new URL((error as RequestError).docs).pathname).toBe("/docs/errors/unauthorized");
    expect((error as RequestError).requestId).toMatch(/^req_[0-9A-Z]{26}$/);
  });

  it("402: an account without credits throws AccountError insufficient_credits, not retryable, asking YouTube nothing", async () => {
    const { key } = await yt.server.platform.accounts.create({ plan: "pro", credits: 0, name: "broke" });
    const playerCalls = yt.fake.requestsTo("/youtubei/v1/player").length;
    const error = await rejectionOf(viaProxy({ apiKey: key.key }).transcripts.video({ video: surfaceGo }));
    expect(error).toBeInstanceOf(AccountError);
    expect(error).toMatchObject({ status: 402, code: "insufficient_credits", number: 2001, retryable: false });
    expect(proxy.requests.filter((request) => request.headers.authorization === `Bearer ${key.key}`)).toHaveLength(1);
    expect(yt.fake.requestsTo("/youtubei/v1/player")).toHaveLength(playerCalls);
  });

  it("400: a request the contract refuses throws RequestError invalid_request with its issues", async () => {
    const error = await rejectionOf(viaProxy().transcripts.video({ video: "" }));
    expect(error).toBeInstanceOf(RequestError);
    expect(error).toMatchObject({ status: 400, code: "invalid_request", number: 1001, retryable: false });
    expect((error as RequestError).issues).toEqual([{ path: "/body/video", message: expect.stringMatching(/\S/) }]);
  });
});

describe("raw: the openapi-fetch client under the SDK", () => {
  it("answers {data, error, response} as openapi-fetch does, the envelope untouched, with the SDK's headers", async () => {
    const verbatim = viaProxy();
    const ok = await verbatim.raw.GET("/me");
    expect(ok.response.status).toBe(200);
    expect(ok.error).toBeUndefined();
    expect(ok.data).toMatchObject({ ok: true, request_id: ok.response.headers.get("x-request-id") });
    expect(ok.data?.data.user_id).toBe(yt.server.account.id);
    expect(lastProxied().headers["user-agent"]).toBe(`verbatim-node/${sdkPackage.version}`);

    const refused = await verbatim.raw.POST("/transcripts/video", { body: { video: "" } });
    expect(refused.response.status).toBe(400);
    expect(refused.data).toBeUndefined();
    expect(refused.error).toMatchObject({ ok: false, error: { code: "invalid_request", number: 1001 } });
    expect(lastProxied().headers["idempotency-key"]).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe("aborts and timeouts", () => {
  it("rejects with the signal's reason as soon as it aborts, while the server is still working", async () => {
    const controller = new AbortController();
    const reason = new Error("the caller gave up");
    setTimeout(() => controller.abort(reason), 150);
    const error = await rejectionOf(viaProxy().transcripts.video({ video: hanging }, { signal: controller.signal }));
    expect(error).toBe(reason);
    // The server gives YouTube 2 s before it answers; no answer had passed the proxy: the call ended on the abort.
    expect(lastProxied()).toMatchObject({ path: "/api/v2/transcripts/video", status: null });
  });

  it("aborts a raw call with the signal openapi-fetch was given", async () => {
    const controller = new AbortController();
    const reason = new Error("raw caller gave up");
    setTimeout(() => controller.abort(reason), 150);
    const error = await rejectionOf(
      viaProxy().raw.POST("/transcripts/video", { body: { video: hanging }, signal: controller.signal }),
    );
    expect(error).toBe(reason);
    expect(lastProxied()).toMatchObject({ path: "/api/v2/transcripts/video", status: null });
  });

  it("sends nothing when the signal has already aborted", async () => {
    const requestsBefore = proxy.requests.length;
    const reason = new Error("aborted before the call");
    const error = await rejectionOf(viaProxy().me({ signal: AbortSignal.abort(reason) }));
    expect(error).toBe(reason);
    expect(proxy.requests).toHaveLength(requestsBefore);
  });

  it("throws TimeoutError when an attempt gets no answer within the client's timeout", async () => {
    const error = await rejectionOf(viaProxy({ timeout: 200, maxRetries: 0 }).transcripts.video({ video: hanging }));
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as TimeoutError).message).toMatch(/within 200 ms/);
  });
});
