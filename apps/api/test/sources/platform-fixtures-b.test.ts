import { execFile, spawnSync } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startPlatformDouble } from "@verbatim/testkit/platform-double";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeAudio, SAMPLE_RATE } from "../../src/adapters/media/decoder.ts";

// The real yt-dlp reads the Instagram, Vimeo, Dailymotion and Facebook fixtures through the platform
// double: each ok scenario must extract, list its subtitles and download the JFK clip; each error
// scenario must make yt-dlp raise the error its extractor raises for that answer (the fixtures'
// SOURCE.md files list them).

const repositoryRoot = fileURLToPath(new URL("../../../..", import.meta.url));
/** Where scripts/ytdlp-env.mjs installs yt-dlp for the API. */
const ytdlp = fileURLToPath(new URL("../../.ytdlp/bin/yt-dlp", import.meta.url));

const JFK_WORDS = "ask not what your country can do for you";
const JFK_SECONDS = 11;
/** yt-dlp's cookie advice, the tail of every `raise_login_required` message. */
const COOKIES_HINT =
  "Use --cookies-from-browser or --cookies for the authentication. See  " +
  "https://github.com/yt-dlp/yt-dlp/wiki/FAQ#how-do-i-pass-cookies-to-yt-dlp  for how to manually pass cookies";

interface Extracted {
  id: string;
  title: string;
  uploader: string;
  /** The languages of the platform's own subtitles, sorted. */
  subtitles: string[];
  /** The host every format's URL points at, when the scenario pins one. */
  mediaHost?: string;
  ageLimit?: number;
}

interface Scenario {
  platform: "instagram" | "vimeo" | "dailymotion" | "facebook";
  name: string;
  url: string;
  /** What `-J` must report, for a scenario yt-dlp extracts. */
  extracted?: Extracted;
  /** Whether `-f bestaudio/best` must download the clip and the subtitles (not media the guard must refuse). */
  downloads?: boolean;
  /** The whole error yt-dlp prints, for a scenario it refuses. */
  error?: string;
}

const scenarios: Scenario[] = [
  {
    platform: "instagram",
    name: "speech",
    url: "https://www.instagram.com/reel/Chunk8-jurw/",
    extracted: { id: "Chunk8-jurw", title: "Video by instagram", uploader: "Instagram", subtitles: [] },
    downloads: true,
  },
  {
    platform: "instagram",
    name: "private-media",
    url: "https://www.instagram.com/reel/DPrvMedia01/",
    extracted: {
      id: "DPrvMedia01",
      title: "Video by instagram",
      uploader: "Instagram",
      subtitles: [],
      mediaHost: "10.20.30.40",
    },
  },
  {
    platform: "instagram",
    name: "private",
    url: "https://www.instagram.com/p/CPriv4te0abAQCmW3rZt8y7Jk2LqXa5NvB0dEfH/",
    error:
      "ERROR: [Instagram] CPriv4te0abAQCmW3rZt8y7Jk2LqXa5NvB0dEfH: This content is only available for registered " +
      `users who follow this account. ${COOKIES_HINT}`,
  },
  {
    platform: "instagram",
    name: "login",
    url: "https://www.instagram.com/p/DLgnWa11Rdr/",
    error:
      "ERROR: [Instagram] DLgnWa11Rdr: The webpage request was redirected to the login page. You have exceeded the " +
      `rate-limit for accessing posts anonymously. ${COOKIES_HINT}`,
  },
  {
    platform: "instagram",
    name: "age-restricted",
    url: "https://www.instagram.com/reel/DAgeGate0x1/",
    error:
      "ERROR: [Instagram] DAgeGate0x1: Restricted Video: You must be 18 years old or over to see this video. " +
      COOKIES_HINT,
  },
  {
    platform: "instagram",
    name: "deleted",
    url: "https://www.instagram.com/p/DGone0000x1/",
    error:
      "ERROR: [Instagram] DGone0000x1: Unable to download webpage: HTTP Error 404: Not Found " +
      "(caused by <HTTPError 404: Not Found>)",
  },
  {
    platform: "vimeo",
    name: "captions",
    url: "https://player.vimeo.com/video/76979871",
    extracted: {
      id: "76979871",
      title: "The New Vimeo Player (You Know, For Videos)",
      uploader: "Vimeo",
      subtitles: ["en", "en-x-autogen"],
    },
    downloads: true,
  },
  {
    platform: "vimeo",
    name: "speech",
    url: "https://player.vimeo.com/video/98044508",
    extracted: {
      id: "98044508",
      title: "Pier Solar OUYA Official Trailer",
      uploader: "Tulio Gonçalves",
      subtitles: [],
    },
    downloads: true,
  },
  {
    platform: "vimeo",
    name: "private-media",
    url: "https://player.vimeo.com/video/111222333",
    extracted: {
      id: "111222333",
      title: "Internal all-hands recording",
      uploader: "Tulio Gonçalves",
      subtitles: [],
      mediaHost: "10.20.30.40",
    },
  },
  {
    platform: "vimeo",
    name: "private",
    url: "https://player.vimeo.com/video/777888999",
    error:
      "ERROR: [vimeo] 777888999: Cannot download embed-only video without embedding URL. Please call yt-dlp with " +
      "the URL of the page that embeds this video.",
  },
  {
    platform: "vimeo",
    name: "password",
    url: "https://player.vimeo.com/video/444555666",
    error: "ERROR: [vimeo] 444555666: This video is protected by a password, use the --video-password option",
  },
  {
    platform: "vimeo",
    name: "deleted",
    url: "https://player.vimeo.com/video/123000456",
    error:
      "ERROR: [vimeo] 123000456: Unable to download webpage: HTTP Error 404: Not Found " +
      "(caused by <HTTPError 404: Not Found>)",
  },
  {
    platform: "vimeo",
    name: "blocked",
    url: "https://player.vimeo.com/video/987654321",
    error:
      "ERROR: [vimeo] 987654321: This request has been blocked due to its TLS fingerprint. Install a required " +
      "impersonation dependency if possible, or else if you are okay with compromising your security/cookies, try " +
      'replacing "https:" with "http:" in the input URL. If you are using a data center IP or VPN/proxy, your IP ' +
      "may be blocked.",
  },
  {
    platform: "dailymotion",
    name: "captions",
    url: "https://www.dailymotion.com/video/x8jfk01",
    extracted: {
      id: "x8jfk01",
      title: "Inaugural address: ask not what your country can do for you",
      uploader: "Deadline",
      subtitles: ["en"],
      ageLimit: 0,
    },
    downloads: true,
  },
  {
    platform: "dailymotion",
    name: "speech",
    url: "https://www.dailymotion.com/video/x8spch2",
    extracted: { id: "x8spch2", title: "JFK inaugural address excerpt", uploader: "Deadline", subtitles: [] },
    downloads: true,
  },
  {
    platform: "dailymotion",
    name: "explicit",
    url: "https://www.dailymotion.com/video/x8xplc3",
    extracted: { id: "x8xplc3", title: "Explicit upload (speech)", uploader: "Deadline", subtitles: [], ageLimit: 18 },
  },
  {
    platform: "dailymotion",
    name: "geo",
    url: "https://www.dailymotion.com/video/x8geob4",
    error:
      "ERROR: [dailymotion] x8geob4: This video is not available in your country.\n" +
      "This video is available in France.\n" +
      "You might want to use a VPN or a proxy server (with --proxy) to workaround.",
  },
  {
    platform: "dailymotion",
    name: "deleted",
    url: "https://www.dailymotion.com/video/x8gone5",
    error: "ERROR: [dailymotion] x8gone5: Video does not exist",
  },
  {
    platform: "facebook",
    name: "captions",
    url: "https://www.facebook.com/radiokicksfm/videos/3676516585958356/",
    extracted: { id: "3676516585958356", title: "dr Adam Przygoda", uploader: "RADIO KICKS FM", subtitles: ["en_US"] },
    downloads: true,
  },
  {
    platform: "facebook",
    name: "speech",
    url: "https://www.facebook.com/watch/?v=647537299265662",
    extracted: {
      id: "647537299265662",
      title: "Inaugural address excerpt",
      uploader: "Istoria Moldovei",
      subtitles: [],
    },
    downloads: true,
  },
  {
    platform: "facebook",
    name: "login",
    url: "https://www.facebook.com/watch/?v=1195289147628387",
    error: `ERROR: [facebook] 1195289147628387: This video is only available for registered users. ${COOKIES_HINT}`,
  },
  {
    platform: "facebook",
    name: "deleted",
    url: "https://www.facebook.com/video.php?v=274175099429670",
    error:
      "ERROR: [facebook] 274175099429670: The video is not available, Facebook said: " +
      '"This content isn\'t available right now"',
  },
];

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

let double: Awaited<ReturnType<typeof startPlatformDouble>>;
let workDir: string;

function runYtdlp(args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    execFile(
      ytdlp,
      ["--ignore-config", "--no-update", "--no-cache-dir", "--no-playlist", "--proxy", double.proxyUrl, ...args],
      // Only the test CA: everything goes through the double, so nothing else needs trusting.
      { env: { ...process.env, SSL_CERT_FILE: double.caFile }, maxBuffer: 16 * 1024 * 1024, timeout: 50_000 },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== "number") reject(error);
        else resolve({ code: typeof error?.code === "number" ? error.code : 0, stdout, stderr });
      },
    );
  });
}

/**
 * How long the file's audio lasts, counted in decoded samples: the container's own duration can be longer
 * (the double's speech.mp4 declares 16 s, its video track outlasting the 11 s of sound).
 */
async function secondsOfAudio(path: string): Promise<number> {
  let samples = 0;
  for await (const piece of decodeAudio(path).samples) samples += piece.length;
  return samples / SAMPLE_RATE;
}

/** What yt-dlp printed from its first `ERROR:` on (some errors span lines). */
function errorOf(run: Run): string {
  const start = run.stderr.indexOf("ERROR: ");
  return start === -1 ? `no ERROR in: ${run.stderr}` : run.stderr.slice(start).trimEnd();
}

beforeAll(async () => {
  // The project's own installer (idempotent, locked against concurrent runs) rather than any yt-dlp on PATH.
  const install = spawnSync(process.execPath, [join(repositoryRoot, "scripts", "ytdlp-env.mjs")], { stdio: "inherit" });
  if (install.status !== 0) throw new Error("scripts/ytdlp-env.mjs could not make apps/api/.ytdlp");
  double = await startPlatformDouble({ platforms: ["instagram", "vimeo", "dailymotion", "facebook"] });
  workDir = await mkdtemp(join(tmpdir(), "verbatim-platform-fixtures-b-"));
});

afterAll(async () => {
  await double?.close();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe.concurrent("yt-dlp 2026.8.19 reads the Instagram, Vimeo, Dailymotion and Facebook fixtures", () => {
  for (const scenario of scenarios.filter((each) => each.extracted)) {
    const expected = scenario.extracted as Extracted;
    const title = scenario.downloads ? "extracts and downloads the speech" : "extracts";
    it(`${scenario.platform} ${scenario.name}: ${title} (${expected.id})`, async () => {
      const dir = await mkdtemp(join(workDir, `${scenario.platform}-${scenario.name}-`));
      // One run does both: `-j --no-simulate` prints the info dict and then downloads as told.
      const download = ["-f", "bestaudio/best", "--write-subs", "--sub-langs", "all", "-j", "--no-simulate"];
      const run = await runYtdlp([
        ...(scenario.downloads ? download : ["-J"]),
        "-o",
        join(dir, "%(id)s.%(ext)s"),
        scenario.url,
      ]);
      expect(run.stderr).not.toContain("ERROR:");
      expect(run.code).toBe(0);
      const info = JSON.parse(run.stdout) as {
        id: string;
        title: string;
        uploader: string;
        age_limit?: number;
        subtitles?: Record<string, unknown>;
        formats: { url: string }[];
      };
      expect({ id: info.id, title: info.title, uploader: info.uploader }).toEqual({
        id: expected.id,
        title: expected.title,
        uploader: expected.uploader,
      });
      expect(Object.keys(info.subtitles ?? {}).sort()).toEqual(expected.subtitles);
      if (expected.ageLimit !== undefined) expect(info.age_limit).toBe(expected.ageLimit);
      expect(info.formats.length).toBeGreaterThan(0);
      if (expected.mediaHost) {
        expect(new Set(info.formats.map((format) => new URL(format.url).hostname))).toEqual(
          new Set([expected.mediaHost]),
        );
      }

      const files = await readdir(dir);
      if (!scenario.downloads) {
        expect(files).toEqual([]);
        return;
      }
      const subtitleFiles = files.filter((file) => /\.(vtt|srt)$/.test(file));
      const mediaFiles = files.filter((file) => !subtitleFiles.includes(file));
      expect(mediaFiles).toHaveLength(1);
      const seconds = await secondsOfAudio(join(dir, mediaFiles[0] as string));
      expect(seconds).toBeGreaterThan(JFK_SECONDS - 0.5);
      expect(seconds).toBeLessThan(JFK_SECONDS + 0.5);
      const subtitleLanguages = subtitleFiles.map((file) => file.slice(expected.id.length + 1).replace(/\.\w+$/, ""));
      expect(subtitleLanguages.sort()).toEqual(expected.subtitles);
      for (const file of subtitleFiles) {
        expect((await readFile(join(dir, file), "utf8")).replace(/\s+/g, " ")).toContain(JFK_WORDS);
      }
    });
  }

  for (const scenario of scenarios.filter((each) => each.error)) {
    it(`${scenario.platform} ${scenario.name}: yt-dlp refuses with its own error`, async () => {
      const run = await runYtdlp(["-J", scenario.url]);
      expect(errorOf(run)).toBe(scenario.error);
      expect(run.code).toBe(1);
    });
  }
});
