import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { type PlatformDouble, startPlatformDouble } from "@verbatim/testkit/platform-double";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ytdlpAbsentAdvice } from "../../src/sources/index.ts";
import { type AudioServer, startAudioServer } from "../audio/harness.ts";
import { fetchTranscript, type Loose } from "../audio/requests.ts";
import { jobServiceEnvironment, request, type ServiceClient } from "../audio/service-process.ts";
import { send } from "../support/http.ts";
import { testEngine } from "../support/store.ts";
import {
  type ApiService,
  type ServiceStorage,
  serviceStartTimeoutMs,
  serviceStorage,
  startApiService,
} from "./platform-service.ts";

// A server without a working yt-dlp still knows the platforms' links: it refuses them with
// unsupported_platform and tells the client how its operator enables them, and its deep health
// check says the same. Two ways to be without: none found at all (`ytdlp: null`), or
// VERBATIM_YTDLP naming a virtual environment that has no yt_dlp to import.
const run = promisify(execFile);
const tiktokCaptions = "https://www.tiktok.com/@verbatim.tests/video/7400000000000000001";

/** A TikTok link's refusal: 422 unsupported_platform, saying how to enable yt-dlp. */
function expectRefusedWithAdvice(status: number, body: Loose, shown: string): void {
  expect(status, shown).toBe(422);
  expect(body.error).toMatchObject({ code: "unsupported_platform", number: 3001 });
  expect(body.error.message).toContain("TikTok");
  expect(body.error.message).toContain(ytdlpAbsentAdvice);
}

/** The deep health check of a server without yt-dlp: degraded, video_platforms failing with the advice. */
function expectHealthWithAdvice(health: Loose): void {
  expect(health.data.status, JSON.stringify(health)).toBe("degraded");
  const check = health.data.checks.find((candidate: Loose) => candidate.name === "video_platforms");
  expect(check, JSON.stringify(health.data.checks)).toMatchObject({ status: "failing" });
  expect(check.detail).toContain(ytdlpAbsentAdvice);
}

describe("no yt-dlp found: the platform sources start with none", () => {
  let double: PlatformDouble;
  let server: AudioServer;

  beforeAll(async () => {
    double = await startPlatformDouble({ platforms: ["tiktok"] });
    server = await startAudioServer({ platformDouble: double, platformYtdlp: null, credits: 100 });
  }, 120_000);

  afterAll(async () => {
    await server?.close();
    await double?.close();
  });

  it("answers a TikTok link with unsupported_platform saying how to enable it, and never reaches TikTok", async () => {
    const answer = await fetchTranscript(server, { video: tiktokCaptions });
    expectRefusedWithAdvice(answer.status, answer.body, answer.text);
    expect(double.requests).toEqual([]);
  });

  it("answers a TikTok profile sent as a channel the same way, and never reaches TikTok", async () => {
    const answer = await send(server, {
      method: "POST",
      path: "/api/v2/transcripts/channel",
      json: { channel: "https://www.tiktok.com/@verbatim.tests" },
    });
    expectRefusedWithAdvice(answer.status, answer.body, answer.text);
    expect(double.requests).toEqual([]);
  });

  it("reports video_platforms failing in /health/deep with the same advice", async () => {
    const health = await send(server, { method: "GET", path: "/api/v2/health/deep" });
    expect(health.status, health.text).toBe(200);
    expectHealthWithAdvice(health.body);
  });
});

describe(`VERBATIM_YTDLP names a virtual environment without yt_dlp (${testEngine})`, () => {
  let venv: string;
  let storage: ServiceStorage;
  let api: ApiService;
  let client: ServiceClient;

  beforeAll(async () => {
    venv = await mkdtemp(join(tmpdir(), "verbatim-venv-"));
    [storage] = await Promise.all([serviceStorage(), run("python3", ["-m", "venv", "--without-pip", venv])]);
    api = await startApiService({ ...jobServiceEnvironment, ...storage.env, VERBATIM_YTDLP: venv });
    client = api.client;
  }, serviceStartTimeoutMs);

  afterAll(async () => {
    await api?.service.kill("SIGKILL");
    await storage?.remove();
    if (venv) await rm(venv, { recursive: true, force: true });
  });

  it("answers a TikTok link with unsupported_platform saying how to enable it, and no traceback or path", async () => {
    const answer = await request(client, "POST", "/api/v2/transcripts/video", { video: tiktokCaptions });
    expectRefusedWithAdvice(answer.http_status, answer, JSON.stringify(answer));
    expect(answer.error.message).not.toMatch(/Traceback|sidecar\.py|verbatim-venv-/);
    await api.service.waitForLine(/yt-dlp: ModuleNotFoundError: No module named 'yt_dlp'/, 10_000);
  });

  it("reports video_platforms failing in /health/deep with Python's reason and the same advice", async () => {
    const health = await request(client, "GET", "/api/v2/health/deep");
    expectHealthWithAdvice(health);
    const check = health.data.checks.find((candidate: Loose) => candidate.name === "video_platforms");
    expect(check.detail).toContain("ModuleNotFoundError: No module named 'yt_dlp'");
    expect(check.detail).not.toMatch(/Traceback|verbatim-venv-/);
  });
});
