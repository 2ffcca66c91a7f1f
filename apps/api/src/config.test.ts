import { describe, expect, it } from "vitest";
import { jobsConfigFrom, liveConfigFrom, loadConfig, spotifyCredentialsFrom, youtubeConfigFrom } from "./config.ts";

describe("youtubeConfigFrom", () => {
  it("keeps the adapter's defaults when nothing is set", () => {
    expect(youtubeConfigFrom({})).toEqual({});
  });

  it("reads the origin, the proxy list and the timeouts", () => {
    expect(
      youtubeConfigFrom({
        VERBATIM_YOUTUBE_ORIGIN: "http://egress.internal:8080/",
        VERBATIM_YOUTUBE_MEDIA_ORIGIN: "http://media-egress.internal:8080",
        VERBATIM_PROXY_URLS: "http://user:pw@proxy-a:3128, http://proxy-b:3128",
        VERBATIM_UPSTREAM_TIMEOUT_MS: "5000",
        VERBATIM_UPSTREAM_BUDGET_MS: "20000",
      }),
    ).toEqual({
      origin: "http://egress.internal:8080",
      mediaOrigin: "http://media-egress.internal:8080",
      proxyUrls: ["http://user:pw@proxy-a:3128", "http://proxy-b:3128"],
      attemptTimeoutMs: 5000,
      budgetMs: 20000,
    });
  });

  it("names the variable that holds a bad value", () => {
    expect(() => youtubeConfigFrom({ VERBATIM_PROXY_URLS: "socks5://proxy:1080" })).toThrow(/VERBATIM_PROXY_URLS/);
    expect(() => youtubeConfigFrom({ VERBATIM_YOUTUBE_ORIGIN: "not a url" })).toThrow(/VERBATIM_YOUTUBE_ORIGIN/);
    expect(() => youtubeConfigFrom({ VERBATIM_UPSTREAM_TIMEOUT_MS: "soon" })).toThrow(/VERBATIM_UPSTREAM_TIMEOUT_MS/);
  });
});

describe("spotifyCredentialsFrom", () => {
  it("reads Spotify's page without credentials, and the Web API with both", () => {
    expect(spotifyCredentialsFrom({})).toBeNull();
    expect(spotifyCredentialsFrom({ VERBATIM_SPOTIFY_CLIENT_ID: " ", VERBATIM_SPOTIFY_CLIENT_SECRET: "" })).toBeNull();
    expect(
      spotifyCredentialsFrom({ VERBATIM_SPOTIFY_CLIENT_ID: "app-id", VERBATIM_SPOTIFY_CLIENT_SECRET: " app-secret " }),
    ).toEqual({ clientId: "app-id", clientSecret: "app-secret" });
  });

  it("stops the start when only one of the two is set", () => {
    expect(() => spotifyCredentialsFrom({ VERBATIM_SPOTIFY_CLIENT_ID: "app-id" })).toThrow(
      /VERBATIM_SPOTIFY_CLIENT_ID and VERBATIM_SPOTIFY_CLIENT_SECRET go together/,
    );
    expect(() => spotifyCredentialsFrom({ VERBATIM_SPOTIFY_CLIENT_SECRET: "app-secret" })).toThrow(/go together/);
  });
});

describe("loadConfig: VERBATIM_WEBHOOK_RETRY_SCHEDULE", () => {
  it("retries within 10 s at first and for about 24 h in all by default", () => {
    const { retryDelaysMs } = loadConfig({}).webhooks;
    expect(retryDelaysMs[0]).toBeLessThanOrEqual(10_000);
    const totalHours = retryDelaysMs.reduce((sum, delay) => sum + delay, 0) / 3_600_000;
    expect(totalHours).toBeGreaterThan(23);
    expect(totalHours).toBeLessThanOrEqual(24);
    expect(retryDelaysMs).toEqual([...retryDelaysMs].sort((a, b) => a - b));
  });

  it("reads comma-separated seconds into milliseconds", () => {
    expect(loadConfig({ VERBATIM_WEBHOOK_RETRY_SCHEDULE: "1, 10,60" }).webhooks).toEqual({
      retryDelaysMs: [1_000, 10_000, 60_000],
    });
  });

  it.each(["5,,30", "5,abc", "0,5", "-5", "1.5", "5;30"])("stops start-up on %j, naming the variable", (value) => {
    expect(() => loadConfig({ VERBATIM_WEBHOOK_RETRY_SCHEDULE: value })).toThrow(
      /^VERBATIM_WEBHOOK_RETRY_SCHEDULE must list whole seconds above 0/,
    );
  });
});

describe("liveConfigFrom", () => {
  it("defaults to 4 sessions a worker, a 15 s lease, 60 s of silence, 32 MiB per minute of media and 16 streams an account", () => {
    expect(liveConfigFrom({})).toEqual({
      sessions: 4,
      leaseSeconds: 15,
      silenceSeconds: 60,
      maxBytesPerMinute: 32 * 1024 * 1024,
      eventStreamsPerAccount: 16,
    });
  });

  it("reads each variable, and stops start-up on a value out of bounds, naming it", () => {
    expect(
      liveConfigFrom({
        VERBATIM_LIVE_SESSIONS: "0",
        VERBATIM_LIVE_LEASE_SECONDS: "30",
        VERBATIM_LIVE_SILENCE_SECONDS: "120",
        VERBATIM_LIVE_MAX_BYTES_PER_MINUTE: "1048576",
        VERBATIM_LIVE_EVENT_STREAMS: "2",
      }),
    ).toEqual({
      sessions: 0,
      leaseSeconds: 30,
      silenceSeconds: 120,
      maxBytesPerMinute: 1048576,
      eventStreamsPerAccount: 2,
    });
    expect(() => liveConfigFrom({ VERBATIM_LIVE_SESSIONS: "1.5" })).toThrow(/VERBATIM_LIVE_SESSIONS/);
    expect(() => liveConfigFrom({ VERBATIM_LIVE_LEASE_SECONDS: "0" })).toThrow(/VERBATIM_LIVE_LEASE_SECONDS/);
    expect(() => liveConfigFrom({ VERBATIM_LIVE_EVENT_STREAMS: "0" })).toThrow(/VERBATIM_LIVE_EVENT_STREAMS/);
    expect(() => liveConfigFrom({ VERBATIM_LIVE_MAX_BYTES_PER_MINUTE: "100" })).toThrow(
      /VERBATIM_LIVE_MAX_BYTES_PER_MINUTE/,
    );
  });
});

describe("jobsConfigFrom", () => {
  it("defaults to one process doing everything, 2 workers, 30 s inline, 1000 queued jobs", () => {
    expect(jobsConfigFrom({})).toEqual({
      role: "all",
      workers: 2,
      inlineAudioSeconds: 30,
      maxQueuedJobs: 1000,
      pollSeconds: 0.5,
      heartbeatSeconds: 30,
    });
  });

  it("reads a worker-only process with inline transcription off", () => {
    expect(
      jobsConfigFrom({ VERBATIM_ROLE: "worker", VERBATIM_WORKERS: "4", VERBATIM_INLINE_AUDIO_SECONDS: "0" }),
    ).toMatchObject({ role: "worker", workers: 4, inlineAudioSeconds: 0 });
  });

  it("names the variable that holds a bad value", () => {
    expect(() => jobsConfigFrom({ VERBATIM_ROLE: "scheduler" })).toThrow(/VERBATIM_ROLE/);
    expect(() => jobsConfigFrom({ VERBATIM_WORKERS: "0" })).toThrow(/VERBATIM_WORKERS/);
    expect(() => jobsConfigFrom({ VERBATIM_JOB_HEARTBEAT_SECONDS: "5" })).toThrow(/VERBATIM_JOB_HEARTBEAT_SECONDS/);
    expect(() => jobsConfigFrom({ VERBATIM_MAX_QUEUED_JOBS: "many" })).toThrow(/VERBATIM_MAX_QUEUED_JOBS/);
  });
});

describe("loadConfig: operations", () => {
  it("serves /metrics to loopback only, no worker metrics port, and a 20 s shutdown grace by default", () => {
    expect(loadConfig({}).operations).toEqual({
      metricsToken: undefined,
      metricsPort: undefined,
      shutdownGraceSeconds: 20,
    });
  });

  it("reads the token, the worker metrics port and the grace", () => {
    expect(
      loadConfig({
        VERBATIM_METRICS_TOKEN: "s3cret",
        VERBATIM_METRICS_PORT: "9464",
        VERBATIM_SHUTDOWN_GRACE_SECONDS: "0",
      }).operations,
    ).toEqual({ metricsToken: "s3cret", metricsPort: 9464, shutdownGraceSeconds: 0 });
  });

  it("names the variable that holds a bad value", () => {
    expect(() => loadConfig({ VERBATIM_METRICS_PORT: "70000" })).toThrow(/^VERBATIM_METRICS_PORT must be/);
    expect(() => loadConfig({ VERBATIM_SHUTDOWN_GRACE_SECONDS: "-1" })).toThrow(/^VERBATIM_SHUTDOWN_GRACE_SECONDS/);
  });
});

describe("loadConfig: VERBATIM_MCP_ALLOWED_ORIGINS", () => {
  it("allows no other origin by default", () => {
    expect(loadConfig({}).mcpAllowedOrigins).toEqual([]);
  });

  it("reads comma- or space-separated origins as browsers send them", () => {
    expect(
      loadConfig({ VERBATIM_MCP_ALLOWED_ORIGINS: "https://App.Example:443, http://localhost:6274/ http://[::1]:8080" })
        .mcpAllowedOrigins,
    ).toEqual(["https://app.example", "http://localhost:6274", "http://[::1]:8080"]);
  });

  it.each([
    "app.example",
    "ftp://app.example",
    "https://app.example/mcp",
    "https://app.example?x=1",
    "https://user:pass@app.example",
    "*",
  ])("refuses %s, which is not an http(s) origin, naming the variable", (value) => {
    expect(() => loadConfig({ VERBATIM_MCP_ALLOWED_ORIGINS: value })).toThrow(
      /^VERBATIM_MCP_ALLOWED_ORIGINS must hold origins/,
    );
  });
});

describe("loadConfig: Idempotency-Key locks and test faults", () => {
  it("locks an abandoned key for 30 seconds and injects no fault by default", () => {
    const config = loadConfig({});
    expect(config.idempotencyLockSeconds).toBe(30);
    expect(config.testFaults).toEqual([]);
  });

  it("reads the lock and the fault points", () => {
    const config = loadConfig({ VERBATIM_IDEMPOTENCY_LOCK_SECONDS: "2", VERBATIM_TEST_FAULTS: " exit-after-charge " });
    expect(config.idempotencyLockSeconds).toBe(2);
    expect(config.testFaults).toEqual(["exit-after-charge"]);
  });

  it("names the variable that holds a bad value", () => {
    expect(() => loadConfig({ VERBATIM_IDEMPOTENCY_LOCK_SECONDS: "0" })).toThrow(/VERBATIM_IDEMPOTENCY_LOCK_SECONDS/);
    expect(() => loadConfig({ VERBATIM_TEST_FAULTS: "exit-anywhere" })).toThrow(/VERBATIM_TEST_FAULTS/);
  });
});

describe("loadConfig: the speech engine", () => {
  it("reads VERBATIM_ASR_* with the rest of the configuration, so a bad value stops the start with it", () => {
    expect(loadConfig({}).speech).toMatchObject({
      engine: "sherpa-onnx",
      decoding: { method: "modified_beam_search", activePaths: 4 },
    });
    expect(
      loadConfig({
        VERBATIM_ASR_ENGINE: "openai",
        VERBATIM_ASR_URL: "http://whisper.internal",
        VERBATIM_ASR_API_KEY: "k",
      }).speech,
    ).toEqual({
      engine: "openai",
      baseUrl: "http://whisper.internal",
      model: "whisper-1",
      apiKey: "k",
      timeoutMs: 300_000,
    });
    expect(() => loadConfig({ VERBATIM_ASR_ENGINE: "vosk" })).toThrow(/sherpa-onnx or openai/);
  });
});
