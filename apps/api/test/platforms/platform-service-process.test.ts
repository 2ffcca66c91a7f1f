import { type PlatformDouble, startPlatformDouble } from "@verbatim/testkit/platform-double";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Loose } from "../audio/requests.ts";
import {
  jobServiceEnvironment,
  request,
  type ServiceClient,
  type ServiceProcess,
  startServiceProcess,
} from "../audio/service-process.ts";
import { podcastDoubleFolders } from "../podcast-links/podcast-double.ts";
import { testEngine } from "../support/store.ts";
import {
  type ApiService,
  pollJob,
  type ServiceStorage,
  serviceStartTimeoutMs,
  serviceStorage,
  startApiService,
  videoPlatformsHealth,
} from "./platform-service.ts";

// The service as an operator runs it: `src/main.ts` in its own process, reading the platforms
// through the project's yt-dlp and its egress guard, and Apple's podcast directory, Spotify and
// feeds through its public fetch, out through VERBATIM_PROXY_URLS (the double) and trusting
// VERBATIM_CA_FILE. Every transcript is a job (no inline audio), so a
// worker, never the request, runs yt-dlp's download and the speech engine.
const jfkWords = /what your country can do for you/i;
const tiktokAudio = "https://www.tiktok.com/@verbatim.tests/video/7400000000000000002";
const instagramAudio = "https://www.instagram.com/reel/Chunk8-jurw/";

let double: PlatformDouble;
let storage: ServiceStorage;
const services: ServiceProcess[] = [];

/** What every process of this file runs with: the double as the network, private targets refused as in production. */
function platformEnvironment(): Record<string, string> {
  return {
    ...jobServiceEnvironment,
    ...storage.env,
    VERBATIM_ALLOW_PRIVATE_TARGETS: "0",
    VERBATIM_PROXY_URLS: double.proxyUrl,
    VERBATIM_CA_FILE: double.caFile,
    VERBATIM_INLINE_AUDIO_SECONDS: "0",
  };
}

async function transcribeAsJob(client: ServiceClient, video: string, platform: string): Promise<Loose> {
  const accepted = await request(client, "POST", "/api/v2/transcripts/video", { video });
  expect(accepted.http_status, JSON.stringify(accepted)).toBe(202);
  expect(accepted.data).toMatchObject({ kind: "transcript_job", platform });
  const finished = await pollJob(client, accepted.poll_url);
  expect(finished, JSON.stringify(finished).slice(0, 1000)).toMatchObject({
    ok: true,
    status: "completed",
    data: { platform, source: "audio", caption_kind: null },
    usage: { credits_spent: 1 },
  });
  expect(finished.data.segments.map((segment: Loose) => segment.text).join(" ")).toMatch(jfkWords);
  return accepted;
}

beforeAll(async () => {
  double = await startPlatformDouble({ platforms: ["tiktok", "instagram", ...podcastDoubleFolders] });
  storage = await serviceStorage();
});

afterAll(async () => {
  await Promise.all(services.map((service) => service.kill("SIGKILL")));
  await storage?.remove();
  await double?.close();
});

describe(`the service process reads the platforms through VERBATIM_PROXY_URLS and VERBATIM_CA_FILE (${testEngine})`, () => {
  let api: ApiService;

  beforeAll(async () => {
    // On PostgreSQL the API process runs no worker: a job it accepts is done by a worker process.
    const role: Record<string, string> = testEngine === "postgres" ? { VERBATIM_ROLE: "api" } : {};
    api = await startApiService({ ...platformEnvironment(), ...role });
    services.push(api.service);
  }, serviceStartTimeoutMs);

  it("reports video_platforms ok in the deep health check: yt-dlp answers", async () => {
    const { check } = await videoPlatformsHealth(api.client);
    expect(check).toMatchObject({ status: "ok", detail: null });
  });

  it.skipIf(testEngine === "postgres")(
    "answers a TikTok and an Instagram link with 202, and its worker completes both jobs with the words",
    async () => {
      await Promise.all([
        transcribeAsJob(api.client, tiktokAudio, "tiktok"),
        transcribeAsJob(api.client, instagramAudio, "instagram"),
      ]);
    },
    120_000,
  );

  it.skipIf(testEngine === "postgres")(
    "answers an Apple Podcasts link with its feed's transcript, and a Spotify link with a job its worker completes",
    async () => {
      const apple = await request(api.client, "POST", "/api/v2/transcripts/video", {
        video: "https://podcasts.apple.com/us/podcast/podcasting-q-a/id1550000001?i=1000650000001",
      });
      expect(apple, JSON.stringify(apple).slice(0, 1000)).toMatchObject({
        http_status: 200,
        data: { source: "captions", caption_kind: "publisher", podcast: { resolved_via: "apple" } },
      });
      const accepted = await request(api.client, "POST", "/api/v2/transcripts/video", {
        video: "https://open.spotify.com/episode/0VerbatimAskNot0000000?si=share",
      });
      expect(accepted.http_status, JSON.stringify(accepted)).toBe(202);
      const finished = await pollJob(api.client, accepted.poll_url);
      expect(finished, JSON.stringify(finished).slice(0, 1000)).toMatchObject({
        status: "completed",
        data: {
          source: "audio",
          podcast: { resolved_via: "spotify", audio_url: "https://podcasts.example/media/ep-plain.mp3" },
        },
      });
      expect(finished.data.segments.map((segment: Loose) => segment.text).join(" ")).toMatch(jfkWords);
    },
    120_000,
  );

  it.runIf(testEngine === "postgres")(
    "hands TikTok and Instagram jobs to a worker process, which reads the platforms and completes them",
    async () => {
      const worker = startServiceProcess({ ...platformEnvironment(), VERBATIM_ROLE: "worker" });
      services.push(worker);
      await worker.waitForLine(/Verbatim worker running/, serviceStartTimeoutMs);

      const [tiktok, instagram] = await Promise.all([
        transcribeAsJob(api.client, tiktokAudio, "tiktok"),
        transcribeAsJob(api.client, instagramAudio, "instagram"),
      ]);

      for (const accepted of [tiktok, instagram]) {
        const finishedBy = (service: ServiceProcess) =>
          service.lines.some((line) => line.includes(accepted.job_id) && line.includes("transcription job finished"));
        expect(finishedBy(worker), worker.lines.join("\n")).toBe(true);
        expect(finishedBy(api.service)).toBe(false);
      }
    },
    serviceStartTimeoutMs + 120_000,
  );
});
