import { execFile, spawnSync } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { type PlatformDouble, platformFixture, startPlatformDouble } from "@verbatim/testkit/platform-double";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveFfmpegPath } from "../../src/adapters/media/decoder.ts";

const run = promisify(execFile);
const repoRoot = fileURLToPath(new URL("../../../../", import.meta.url));
const ytdlp = join(repoRoot, "apps", "api", ".ytdlp", "bin", "yt-dlp");

/** A scenario yt-dlp extracts: what it must report, and that its speech media and subtitles download. */
interface Extracted {
  platform: string;
  scenario: string;
  url: string;
  id: string;
  title: string;
  /** The subtitle languages yt-dlp lists, in its order. */
  subtitles: string[];
  /** The format `-f bestaudio/best` picks. */
  format: string;
}

/** A scenario yt-dlp refuses: the start of its `ERROR:` line. */
interface Refused {
  platform: string;
  scenario: string;
  url: string;
  error: string;
}

const LOGIN_HINT = "Use --cookies-from-browser or --cookies for the authentication.";

const extracted: Extracted[] = [
  {
    platform: "tiktok",
    scenario: "captions",
    url: "https://www.tiktok.com/@verbatim.tests/video/7400000000000000001",
    id: "7400000000000000001",
    title: "Ask not what your country can do for you #speech #history",
    subtitles: ["eng-US"],
    format: "h264_540p_412000",
  },
  {
    platform: "tiktok",
    scenario: "speech",
    url: "https://www.tiktok.com/@verbatim.tests/video/7400000000000000002",
    id: "7400000000000000002",
    title: "My fellow Americans, the inaugural address in eleven seconds",
    subtitles: [],
    format: "audio",
  },
  {
    platform: "x",
    scenario: "captions",
    url: "https://x.com/verbatimtests/status/1900000000000000001",
    id: "1900000000000000101",
    title: "Verbatim Tests - #history Ask not what your country can do for you: the inaugural addr...",
    subtitles: ["en"],
    format: "hls-audio-64000-Audio",
  },
  {
    platform: "x",
    scenario: "speech",
    url: "https://x.com/verbatimtests/status/1900000000000000002",
    id: "1900000000000000102",
    title: "Verbatim Tests - #history My fellow Americans: eleven seconds of the inaugural address",
    subtitles: [],
    format: "http-832",
  },
  {
    platform: "loom",
    scenario: "captions",
    url: "https://www.loom.com/share/c0ffee00000000000000000000000001",
    id: "c0ffee00000000000000000000000001",
    title: "Ask not what your country can do for you",
    subtitles: ["en"],
    format: "http-raw",
  },
  {
    platform: "loom",
    scenario: "speech",
    url: "https://www.loom.com/share/c0ffee00000000000000000000000002",
    id: "c0ffee00000000000000000000000002",
    title: "My fellow Americans",
    subtitles: [],
    format: "hls-raw-70",
  },
  {
    platform: "twitch",
    scenario: "speech",
    url: "https://www.twitch.tv/videos/2300000001",
    id: "v2300000001",
    title: "Ask not what your country can do for you (inaugural address rerun)",
    subtitles: [],
    format: "Audio_Only",
  },
  {
    platform: "twitch",
    scenario: "clip",
    url: "https://clips.twitch.tv/VerbatimTestsAskNotClip-Jfk1961Inaugural",
    id: "2300000101",
    title: "Ask not what your country can do for you",
    subtitles: [],
    format: "360",
  },
];

const privateMedia = [
  { platform: "tiktok", url: "https://www.tiktok.com/@verbatim.tests/video/7400000000000000007" },
  { platform: "x", url: "https://x.com/verbatimtests/status/1900000000000000007" },
  { platform: "loom", url: "https://www.loom.com/share/c0ffee00000000000000000000000007" },
  { platform: "twitch", url: "https://clips.twitch.tv/VerbatimTestsPrivateMediaClip-TenTwenty" },
];

const refused: Refused[] = [
  {
    platform: "tiktok",
    scenario: "private",
    url: "https://www.tiktok.com/@verbatim.tests/video/7400000000000000003",
    error: `ERROR: [TikTok] 7400000000000000003: You do not have permission to view this post. Log into an account that has access. ${LOGIN_HINT}`,
  },
  {
    platform: "tiktok",
    scenario: "deleted",
    url: "https://www.tiktok.com/@verbatim.tests/video/7400000000000000004",
    error: "ERROR: [TikTok] 7400000000000000004: Your IP address is blocked from accessing this post",
  },
  {
    platform: "tiktok",
    scenario: "login",
    url: "https://www.tiktok.com/@verbatim.tests/video/7400000000000000005",
    error: `ERROR: [TikTok] 7400000000000000005: TikTok is requiring login for access to this content. ${LOGIN_HINT}`,
  },
  {
    platform: "tiktok",
    scenario: "blocked",
    url: "https://www.tiktok.com/@verbatim.tests/video/7400000000000000006",
    error: "ERROR: [TikTok] 7400000000000000006: Unable to extract universal data for rehydration;",
  },
  {
    platform: "x",
    scenario: "private",
    url: "https://x.com/verbatimtests/status/1900000000000000003",
    error: `ERROR: [twitter] 1900000000000000003: You are not authorized to view this protected tweet. ${LOGIN_HINT}`,
  },
  {
    platform: "x",
    scenario: "deleted",
    url: "https://x.com/verbatimtests/status/1900000000000000004",
    error: "ERROR: [twitter] 1900000000000000004: Twitter API says: This Post was deleted by the Post author",
  },
  {
    platform: "x",
    scenario: "login",
    url: "https://x.com/verbatimtests/status/1900000000000000005",
    error: `ERROR: [twitter] 1900000000000000005: NSFW tweet requires authentication. ${LOGIN_HINT}`,
  },
  {
    platform: "x",
    scenario: "blocked",
    url: "https://x.com/verbatimtests/status/1900000000000000006",
    error: "ERROR: [twitter] 1900000000000000006: Unable to download JSON metadata: HTTP Error 429: Too Many Requests",
  },
  {
    platform: "loom",
    scenario: "private",
    url: "https://www.loom.com/share/c0ffee00000000000000000000000003",
    error: "ERROR: [loom] c0ffee00000000000000000000000003: No video formats found!;",
  },
  {
    platform: "loom",
    scenario: "deleted",
    url: "https://www.loom.com/share/c0ffee00000000000000000000000004",
    error: "ERROR: [loom] c0ffee00000000000000000000000004: No video formats found!;",
  },
  {
    platform: "loom",
    scenario: "login",
    url: "https://www.loom.com/share/c0ffee00000000000000000000000005",
    error:
      "ERROR: [loom] c0ffee00000000000000000000000005: This video is password-protected, use the --video-password option",
  },
  {
    platform: "loom",
    scenario: "blocked",
    url: "https://www.loom.com/share/c0ffee00000000000000000000000006",
    error:
      "ERROR: [loom] c0ffee00000000000000000000000006: Failed to download GraphQL JSON: HTTP Error 429: Too Many Requests",
  },
  {
    platform: "twitch",
    scenario: "login",
    url: "https://www.twitch.tv/videos/2300000003",
    error:
      "ERROR: [twitch:vod] 2300000003: You must be logged into an account that has access to this subscriber-only content.",
  },
  {
    platform: "twitch",
    scenario: "deleted",
    url: "https://www.twitch.tv/videos/2300000004",
    error: "ERROR: [twitch:vod] 2300000004: Video 2300000004 does not exist",
  },
  {
    platform: "twitch",
    scenario: "deleted-clip",
    url: "https://clips.twitch.tv/VerbatimTestsDeletedClip-Gone0000000000",
    error: "ERROR: [twitch:clips] VerbatimTestsDeletedClip-Gone0000000000: This clip is no longer available",
  },
  {
    platform: "twitch",
    scenario: "blocked",
    url: "https://www.twitch.tv/videos/2300000006",
    error: "ERROR: [twitch:vod] 2300000006: content_geoblocked: Content Restricted In Region",
  },
];

const JFK_WORDS = "ask not what your country can do for you";

interface YtdlpResult {
  code: number;
  stdout: string;
  stderr: string;
}

describe("the real yt-dlp against the platform double", () => {
  let double: PlatformDouble;

  const ytdlpThroughDouble = async (args: string[]): Promise<YtdlpResult> => {
    const common = ["--ignore-config", "--no-update", "--no-cache-dir", "--no-playlist", "--proxy", double.proxyUrl];
    // Without certifi (or told not to use it) yt-dlp trusts Python's default store, which SSL_CERT_FILE replaces.
    const options = { env: { ...process.env, SSL_CERT_FILE: double.caFile }, maxBuffer: 16 * 1024 * 1024 };
    try {
      const { stdout, stderr } = await run(ytdlp, [...common, "--compat-options", "no-certifi", ...args], options);
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code?: number; stdout?: string; stderr?: string };
      return { code: failed.code ?? -1, stdout: failed.stdout ?? "", stderr: failed.stderr ?? "" };
    }
  };

  beforeAll(async () => {
    // The project's yt-dlp environment (apps/api/.ytdlp), made or refreshed as CI and postinstall make it.
    const made = spawnSync(process.execPath, [join(repoRoot, "scripts", "ytdlp-env.mjs")], { encoding: "utf8" });
    expect(made.status, made.stderr).toBe(0);
    double = await startPlatformDouble({ platforms: ["tiktok", "x", "loom", "twitch"] });
  });
  afterAll(() => double?.close());

  describe.concurrent("extracts each ok scenario and downloads its speech", () => {
    for (const expected of extracted) {
      it(`${expected.platform} ${expected.scenario}: ${expected.url}`, async () => {
        const dir = await mkdtemp(join(tmpdir(), "verbatim-ytdlp-"));
        try {
          const result = await ytdlpThroughDouble([
            ...["-f", "bestaudio/best", "--write-subs", "--sub-langs", "all"],
            ...["-o", join(dir, "%(id)s.%(ext)s"), "-O", "after_move:%()j", expected.url],
          ]);
          expect(result.code, result.stderr).toBe(0);
          const info = JSON.parse(result.stdout) as {
            id: string;
            title: string;
            format_id: string;
            filepath: string;
            subtitles?: Record<string, unknown>;
            requested_subtitles?: Record<string, { filepath: string }> | null;
          };
          expect({ id: info.id, title: info.title, format: info.format_id }).toEqual({
            id: expected.id,
            title: expected.title,
            format: expected.format,
          });
          expect(Object.keys(info.subtitles ?? {})).toEqual(expected.subtitles);
          for (const subtitle of Object.values(info.requested_subtitles ?? {})) {
            expect((await readFile(subtitle.filepath, "utf8")).toLowerCase()).toContain(JFK_WORDS);
          }
          expect(await audioSeconds(info.filepath)).toBeCloseTo(11, 0);

          const recorded = JSON.parse(
            await readFile(platformFixture(`${expected.platform}/info/${expected.scenario}.json`), "utf8"),
          ) as { id: string; title: string; subtitles?: Record<string, unknown> };
          expect({ id: recorded.id, title: recorded.title, subtitles: Object.keys(recorded.subtitles ?? {}) }).toEqual({
            id: expected.id,
            title: expected.title,
            subtitles: expected.subtitles,
          });
        } finally {
          await rm(dir, { recursive: true, force: true });
        }
      });
    }
  });

  // One yt-dlp run for many URLs: each run costs a Python start-up, and the assertions stay one per scenario.
  const batches = new Map<string, Promise<YtdlpResult>>();
  const batchRun = (name: string, args: string[]) => {
    let batch = batches.get(name);
    if (!batch) {
      batch = ytdlpThroughDouble(["--ignore-errors", ...args]);
      batches.set(name, batch);
    }
    return batch;
  };

  describe.concurrent("lists media at a private address as the private-media scenarios author it", () => {
    for (const { platform, url } of privateMedia) {
      it(`${platform}: ${url}`, async () => {
        const result = await batchRun("private-media", ["-j", ...privateMedia.map((scenario) => scenario.url)]);
        expect(result.code, result.stderr).toBe(0);
        const infos = result.stdout
          .trim()
          .split("\n")
          .map((line) => JSON.parse(line) as { original_url: string; formats: { url: string }[] });
        const info = infos.find((candidate) => candidate.original_url === url);
        expect(info?.formats.length).toBeGreaterThan(0);
        for (const format of info?.formats ?? []) expect(format.url).toMatch(/^https:\/\/10\.20\.30\.40\//);
      });
    }
  });

  describe.concurrent("fails each error scenario with yt-dlp's own message", () => {
    for (const expected of refused) {
      it(`${expected.platform} ${expected.scenario}: ${expected.url}`, async () => {
        const platformUrls = refused
          .filter((scenario) => scenario.platform === expected.platform)
          .map((scenario) => scenario.url);
        const result = await batchRun(`refused ${expected.platform}`, ["-j", ...platformUrls]);
        expect(result.code).toBe(1);
        const errorLines = result.stderr.split("\n").filter((line) => line.startsWith("ERROR: "));
        expect(errorLines).toHaveLength(platformUrls.length);
        expect(
          errorLines.some((line) => line.startsWith(expected.error)),
          result.stderr,
        ).toBe(true);
      });
    }
  });
});

/** How many seconds of audio ffmpeg decodes from the file: the JFK clip lasts 11 s. */
async function audioSeconds(path: string): Promise<number> {
  const { stderr } = await run(resolveFfmpegPath(), [
    "-hide_banner",
    "-nostdin",
    "-i",
    path,
    "-map",
    "0:a",
    "-f",
    "null",
    "-",
  ]);
  const times = [...stderr.matchAll(/time=(\d+):(\d+):(\d+\.\d+)/g)];
  const last = times.at(-1);
  if (!last) throw new Error(`ffmpeg decoded no audio from ${path}:\n${stderr}`);
  return Number(last[1]) * 3600 + Number(last[2]) * 60 + Number(last[3]);
}
