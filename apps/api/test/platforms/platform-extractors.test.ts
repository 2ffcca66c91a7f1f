import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type PlatformDouble, startPlatformDouble } from "@verbatim/testkit/platform-double";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AudioServer, startAudioServer } from "../audio/harness.ts";
import { fetchTranscript, type Loose } from "../audio/requests.ts";
import { startServiceProcess } from "../audio/service-process.ts";

// VERBATIM_YTDLP_EXTRACTORS is the operator's list of the platforms yt-dlp may read: a link to a
// platform left out is refused before yt-dlp runs, and the generic extractor (any page on the
// web) may never be listed.
describe("VERBATIM_YTDLP_EXTRACTORS=Vimeo", () => {
  let double: PlatformDouble;
  let server: AudioServer;

  beforeAll(async () => {
    double = await startPlatformDouble({ platforms: ["tiktok", "vimeo"] });
    server = await startAudioServer({ platformDouble: double, platformExtractors: ["Vimeo"], credits: 100 });
  }, 120_000);

  afterAll(async () => {
    await server?.close();
    await double?.close();
  });

  it("answers a TikTok link with unsupported_platform naming the setting, and never reaches TikTok", async () => {
    const answer = await fetchTranscript(server, {
      video: "https://www.tiktok.com/@verbatim.tests/video/7400000000000000001",
    });
    expect(answer.status, answer.text).toBe(422);
    const { error } = answer.body as Loose;
    expect(error).toMatchObject({ code: "unsupported_platform", number: 3001 });
    expect(error.message).toMatch(/TikTok.*VERBATIM_YTDLP_EXTRACTORS/);
    expect(double.requests.filter((request) => request.url.includes("tiktok"))).toEqual([]);
  });

  it("still reads the Vimeo it allows", async () => {
    const answer = await fetchTranscript(server, { video: "https://player.vimeo.com/video/76979871" });
    expect(answer.status, answer.text).toBe(200);
    expect((answer.body as Loose).data).toMatchObject({ platform: "vimeo", source: "captions" });
  });
});

describe("VERBATIM_YTDLP_EXTRACTORS=Generic", () => {
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "verbatim-generic-"));
  });

  afterAll(async () => {
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it("stops the service at start-up, saying why, before it opens its store", async () => {
    const service = startServiceProcess({
      VERBATIM_YTDLP_EXTRACTORS: "Vimeo,Generic",
      VERBATIM_DATA_DIR: dataDir,
      DATABASE_URL: "",
      PORT: "0",
    });
    let stderr = "";
    service.process.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    await service.exited;
    expect(service.process.exitCode, stderr).toBe(1);
    expect(stderr).toContain(
      'verbatim: VERBATIM_YTDLP_EXTRACTORS may not name "Generic": it would read any page on the web',
    );
    expect(service.lines.join("\n")).not.toMatch(/listening|API key/);
    expect(await readdir(dataDir)).toEqual([]);
  }, 120_000);
});
