import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { meteredSpeechEngine } from "../../src/adapters/asr/metered-engine.ts";
import type { SpeechEngine } from "../../src/adapters/asr/speech-engine.ts";
import { createLogger } from "../../src/logger.ts";
import { ServiceMetrics } from "../../src/metrics.ts";
import { type PgBoss, startJobQueue, transcriptionQueueName } from "../../src/queue/job-queue.ts";
import { transcriptionQueues } from "../../src/workers/transcription-queue.ts";
import { startServer, type TestServer } from "../support/server.ts";
import { testEngine } from "../support/store.ts";
import { startYoutubeServer, type YoutubeTestServer } from "../support/youtube-server.ts";

/** The value of one sample of the exposition text, or undefined when it is absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  for (const line of text.split("\n")) {
    const match = /^([a-z_:]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = (match[2] ?? "").split(",").filter(Boolean);
    if (wanted.length === present.length && wanted.every((label) => present.includes(label))) return Number(match[3]);
  }
  return undefined;
}

async function scrape(baseUrl: string, headers: Record<string, string> = {}): Promise<string> {
  const response = await fetch(`${baseUrl}/metrics`, { headers });
  expect(response.status, await response.clone().text()).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  return response.text();
}

describe("GET /metrics: who may scrape it", () => {
  let open: TestServer;
  let guarded: TestServer;
  const token = "operator-token-for-the-test";
  beforeAll(async () => {
    open = await startServer();
    guarded = await startServer({ deps: { config: { version: "0.0.0-test", metricsToken: token } } });
  }, 120_000);
  afterAll(async () => {
    await open?.close();
    await guarded?.close();
  });

  it("serves a loopback client without a token, in the Prometheus text format", async () => {
    const text = await scrape(open.baseUrl);
    expect(text).toContain("# TYPE verbatim_http_requests_total counter");
    expect(sample(text, "verbatim_database_up", { engine: testEngine })).toBe(1);
  });

  it.each<Record<string, string>>([
    { "x-forwarded-for": "203.0.113.7" },
    { forwarded: "for=203.0.113.7" },
    { "x-real-ip": "203.0.113.7" },
  ])(
    "answers 404 without a token when a proxy on this machine forwards another client (%o), saying how to scrape",
    async (headers) => {
      const response = await fetch(`${open.baseUrl}/metrics`, { headers });
      expect(response.status).toBe(404);
      const body = (await response.json()) as { ok: boolean; error: { code: string; message: string } };
      expect(body).toMatchObject({ ok: false, error: { code: "not_found" } });
      expect(body.error.message).toMatch(/loopback clients only.*VERBATIM_METRICS_TOKEN/);
    },
  );

  it("with a token, answers 401 to a request without it or with another, whatever its address", async () => {
    const attempts: Record<string, string>[] = [
      {},
      { authorization: "Bearer not-the-token" },
      { authorization: token },
    ];
    for (const headers of attempts) {
      const response = await fetch(`${guarded.baseUrl}/metrics`, { headers });
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toMatch(/^Bearer /);
      const body = (await response.json()) as { error: { code: string; message: string } };
      expect(body.error).toMatchObject({ code: "unauthorized" });
      expect(body.error.message).toMatch(/Authorization: Bearer <VERBATIM_METRICS_TOKEN>/);
    }
  });

  it("with a token, serves any client that sends it", async () => {
    const text = await scrape(guarded.baseUrl, {
      authorization: `Bearer ${token}`,
      "x-forwarded-for": "203.0.113.7",
    });
    expect(text).toContain("verbatim_jobs");
  });
});

describe("GET /metrics: what it counts", () => {
  let yt: YoutubeTestServer;
  let baseUrl: string;
  let key: string;
  beforeAll(async () => {
    yt = await startYoutubeServer({ plan: "free" });
    yt.fake.serveRecordedVideos();
    baseUrl = yt.server.baseUrl;
    key = yt.server.key.key;
  });
  afterAll(() => yt?.close());

  const call = (method: string, path: string, body?: unknown, apiKey = key) =>
    fetch(`${baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  it("counts requests by operationId and status, never by raw path, with a latency histogram", async () => {
    // The test server asked its validators whether they were ready, with paths no document has.
    const unmatchedBefore = sample(await scrape(baseUrl), "verbatim_http_requests_total", {
      operation: "unmatched",
      status: "404",
    });
    await fetch(`${baseUrl}/api/v2/health`);
    await fetch(`${baseUrl}/api/v2/health`);
    expect((await call("GET", "/api/v2/transcripts/jobs/job_01JD7XH0V6Q8M2F4A9C3K5T7W1")).status).toBe(404);
    expect((await fetch(`${baseUrl}/no/such/path-123`)).status).toBe(404);
    const text = await scrape(baseUrl);
    expect(sample(text, "verbatim_http_requests_total", { operation: "healthCheck", status: "200" })).toBe(2);
    expect(sample(text, "verbatim_http_requests_total", { operation: "getTranscriptJob", status: "404" })).toBe(1);
    expect(sample(text, "verbatim_http_requests_total", { operation: "unmatched", status: "404" })).toBe(
      (unmatchedBefore ?? 0) + 1,
    );
    expect(
      sample(text, "verbatim_http_request_duration_seconds_count", { operation: "healthCheck", status: "200" }),
    ).toBe(2);
    expect(
      sample(text, "verbatim_http_request_duration_seconds_bucket", {
        le: "+Inf",
        operation: "healthCheck",
        status: "200",
      }),
    ).toBe(2);
    expect(text).not.toContain("job_01JD7XH0V6Q8M2F4A9C3K5T7W1");
    expect(text).not.toContain("path-123");
  });

  it("counts upstream failures by error code", async () => {
    yt.fake.player("always500__", { status: 500, body: "" });
    const response = await call("POST", "/api/v2/transcripts/video", { video: "always500__" });
    expect(response.status).toBe(503);
    const text = await scrape(baseUrl);
    expect(sample(text, "verbatim_upstream_failures_total", { code: "upstream_error" })).toBe(1);
  });

  it("counts refusals by slots, by credits and by the request rate limit", async () => {
    const { platform, account } = yt.server;
    const leases = [await platform.slots.acquire(account.id, 2), await platform.slots.acquire(account.id, 2)];
    try {
      expect((await call("POST", "/api/v2/transcripts/video", { video: "GJLlxj_dtq8" })).status).toBe(429);
    } finally {
      for (const lease of leases) if (lease) await platform.slots.release(lease);
    }
    const { account: broke, key: brokeKey } = await platform.accounts.create({
      plan: "free",
      credits: 0,
      name: "no credits",
    });
    expect(broke.credits).toBe(0);
    expect((await call("POST", "/api/v2/transcripts/video", { video: "GJLlxj_dtq8" }, brokeKey.key)).status).toBe(402);
    let refused = 0;
    for (let attempt = 0; attempt < 12 && refused === 0; attempt++) {
      if ((await call("GET", "/api/v2/library", undefined, brokeKey.key)).status === 429) refused++;
    }
    expect(refused).toBe(1);
    const text = await scrape(baseUrl);
    expect(sample(text, "verbatim_allowance_refusals_total", { kind: "slots" })).toBe(1);
    expect(sample(text, "verbatim_allowance_refusals_total", { kind: "credits" })).toBe(1);
    expect(sample(text, "verbatim_allowance_refusals_total", { kind: "requests" })).toBe(1);
  });

  it("reads the queue's jobs from the database at scrape time: queued and running, with their age", async () => {
    let boss: PgBoss | undefined;
    try {
      boss = await startJobQueue(
        yt.server.platform.store,
        transcriptionQueues({ heartbeatSeconds: 10, retryLimit: 2 }),
        createLogger("silent"),
      );
      for (const jobId of ["job_a", "job_b", "job_c"]) await boss.send(transcriptionQueueName, { jobId });
      const [claimed] = await boss.fetch(transcriptionQueueName);
      expect(claimed).toBeDefined();
      const text = await scrape(baseUrl);
      expect(sample(text, "verbatim_jobs", { state: "queued" })).toBe(2);
      expect(sample(text, "verbatim_jobs", { state: "running" })).toBe(1);
      expect(sample(text, "verbatim_queue_jobs", { queue: transcriptionQueueName, state: "queued" })).toBe(2);
      expect(sample(text, "verbatim_queue_jobs", { queue: transcriptionQueueName, state: "active" })).toBe(1);
      expect(sample(text, "verbatim_jobs_oldest_age_seconds", { state: "queued" })).toBeGreaterThanOrEqual(0);
      expect(sample(text, "verbatim_jobs", { state: "completed" })).toBe(0);
      expect(sample(text, "verbatim_webhook_deliveries", { status: "pending" })).toBe(0);
    } finally {
      await boss?.stop({ graceful: false, close: false });
    }
  });

  it("reports the PostgreSQL pool's connections, and no pool on the embedded engine", async () => {
    const text = await scrape(baseUrl);
    const total = sample(text, "verbatim_database_pool_connections", { state: "total" });
    if (testEngine === "postgres") {
      expect(total).toBeGreaterThanOrEqual(1);
      expect(sample(text, "verbatim_database_pool_connections", { state: "waiting" })).toBe(0);
    } else {
      expect(total).toBeUndefined();
    }
  });

  it("reports the database as down, and still answers, when the scrape cannot read it", async () => {
    const { store } = yt.server.platform;
    const query = store.query;
    store.query = (() => Promise.reject(new Error("connect ECONNREFUSED 127.0.0.1:5432"))) as typeof query;
    try {
      const text = await scrape(baseUrl);
      expect(sample(text, "verbatim_database_up", { engine: testEngine })).toBe(0);
      expect(sample(text, "verbatim_jobs", { state: "queued" })).toBeUndefined();
    } finally {
      store.query = query;
    }
  });
});

describe("speech recognition metrics", () => {
  it("adds each recognition's audio seconds and observes its real-time factor", async () => {
    const metrics = new ServiceMetrics();
    const info = { engine: "sherpa-onnx" as const, model: "test", language: "en", decoding: "greedy_search" };
    const engine: SpeechEngine = {
      info,
      async transcribe(samples) {
        let count = 0;
        for await (const chunk of samples) count += chunk.length;
        return { info, segments: [], duration: count / 16_000 };
      },
      check: async () => undefined,
    };
    const metered = meteredSpeechEngine(engine, metrics);
    async function* audio(seconds: number) {
      yield new Float32Array(16_000 * seconds);
    }
    await metered.transcribe(audio(3));
    await metered.transcribe(audio(2));
    const text = await metrics.text();
    expect(sample(text, "verbatim_speech_recognition_audio_seconds_total")).toBe(5);
    expect(sample(text, "verbatim_speech_recognition_real_time_factor_count")).toBe(2);
    expect(sample(text, "verbatim_speech_recognition_real_time_factor_sum")).toBeGreaterThan(0);
    expect(metered.info).toBe(info);
  });
});
