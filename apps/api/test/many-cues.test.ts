import { FakeYoutube, recordedVideos } from "@verbatim/testkit/fake-youtube";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { IsolatedParser } from "../src/adapters/parsing/isolated-parser.ts";
import { createYoutubeAdapter } from "../src/adapters/youtube/index.ts";
import { createLogger } from "../src/logger.ts";
import { startEgressGuard } from "../src/sources/egress/egress-guard.ts";
import { type PlatformSources, SourceRegistry } from "../src/sources/index.ts";
import type { InfoDict } from "../src/sources/ytdlp/info-dict.ts";
import { type YtdlpCalls, YtdlpSource } from "../src/sources/ytdlp/ytdlp-source.ts";
import { type AudioServer, startAudioServer } from "./audio/harness.ts";
import { fetchTranscript, type Loose } from "./audio/requests.ts";
import { youtubeCaptions } from "./support/youtube-captions.ts";

// Caption files of hundreds of thousands of cues, each as large as the 10 MiB cap on a caption
// lets it be, through every path that parses one into segments. Spreading such a file's cues into
// one call (`push(...cues)`) overflows the stack past about 120,000 of them: a 500. One goes
// through the whole service; storing a third of a million segments takes long, so the others stop
// at the source that reads them.

/** Cues of one-letter text, 9 ms apart, the letters in turn: the answer's text tells their order. */
function letterOf(index: number): string {
  return String.fromCharCode(97 + (index % 26));
}

/** Asserts that `text` holds every cue's letter, in order: the text of `count` cues read in full. */
function expectEveryCue(text: string | undefined, count: number): void {
  const expected = Array.from({ length: count }, (_, index) => letterOf(index)).join(" ");
  // Not toBe: a diff of two 700 kB strings says less than their lengths and ends.
  expect(text === expected, `${text?.length} characters, ending ${text?.slice(-20)}`).toBe(true);
}

function clock(ms: number, withHours: boolean, separator: "." | ","): string {
  const hours = String(Math.floor(ms / 3_600_000)).padStart(2, "0");
  const minutes = String(Math.floor(ms / 60_000) % 60).padStart(2, "0");
  const seconds = String(Math.floor(ms / 1000) % 60).padStart(2, "0");
  const millis = String(ms % 1000).padStart(3, "0");
  return `${withHours ? `${hours}:` : ""}${minutes}:${seconds}${separator}${millis}`;
}

/** WebVTT in its shortest form (no hours): 27 bytes a cue, 362,000 of them in 9.8 MB. */
function vttOf(count: number, firstIndex = 0): string {
  const cues: string[] = ["WEBVTT\n\n"];
  for (let index = firstIndex; index < firstIndex + count; index++) {
    cues.push(`${clock(index * 9, false, ".")} --> ${clock(index * 9 + 8, false, ".")}\n${letterOf(index)}\n\n`);
  }
  return cues.join("");
}

function srtOf(count: number): string {
  const cues: string[] = [];
  for (let index = 0; index < count; index++) {
    cues.push(
      `${index + 1}\n${clock(index * 9, true, ",")} --> ${clock(index * 9 + 8, true, ",")}\n${letterOf(index)}\n\n`,
    );
  }
  return cues.join("");
}

function json3Of(count: number): string {
  const events = Array.from({ length: count }, (_, index) => ({
    tStartMs: index * 9,
    segs: [{ utf8: letterOf(index) }],
  }));
  return JSON.stringify({ events });
}

function srv3Of(count: number): string {
  const paragraphs: string[] = ['<timedtext format="3"><body>'];
  for (let index = 0; index < count; index++) paragraphs.push(`<p t="${index * 9}" d="8">${letterOf(index)}</p>`);
  paragraphs.push("</body></timedtext>");
  return paragraphs.join("");
}

const MiB = 1024 * 1024;
/** The most cues of each format that fit the 10 MiB cap, each well past where a spread overflows. */
const counts = { vtt: 370_000, srt: 240_000, json3: 270_000, srv3: 370_000 };
/** A parse of 10 MB takes seconds, many more on a loaded machine; the deadline is not what these tests try. */
const parseDeadlineMs = 120_000;

describe("caption files of hundreds of thousands of cues are read in full", { timeout: 120_000 }, () => {
  const logger = createLogger("silent");
  /** The caption file at each address yt-dlp is asked for, a playlist's pieces included. */
  const captionFiles = new Map<string, string>();
  const infoDicts = new Map<string, InfoDict>();
  let server: AudioServer;
  let youtube: FakeYoutube;
  let ytdlpSource: YtdlpSource;

  function captionFileAt(url: string): string {
    const file = captionFiles.get(url);
    if (file === undefined) throw new Error(`no caption file at ${url}`);
    return file;
  }

  /** yt-dlp as the source calls it: the info dicts and caption files above, as the sidecar would print them. */
  const engine: YtdlpCalls = {
    extract: async (url) => {
      const info = infoDicts.get(url);
      if (!info) throw new Error(`no info dict for ${url}`);
      return info;
    },
    fetchText: async (url) => captionFileAt(url),
    fetchTexts: async (urls) => urls.map(captionFileAt),
    downloadAudio: async (url) => {
      throw new Error(`no audio in this test (${url})`);
    },
  };

  /** A TikTok post whose one caption track, of `format`, is `file`. */
  function tiktokPost(id: string, format: "vtt" | "srt" | "json3", file: string): string {
    const url = `https://www.tiktok.com/@verbatim.tests/video/${id}`;
    const captionUrl = `https://captions.tiktok.example/${id}.${format}`;
    infoDicts.set(url, {
      extractor_key: "TikTok",
      id,
      title: `${format} captions`,
      duration: 3_400,
      subtitles: { "eng-US": [{ ext: format, url: captionUrl }] },
    });
    captionFiles.set(captionUrl, file);
    return url;
  }

  /** The text of the captions the yt-dlp source reads for a post. */
  async function ytdlpText(url: string): Promise<string> {
    const ref = ytdlpSource.match(url);
    if (!ref) throw new Error(`no source reads ${url}`);
    const details = await ytdlpSource.resolve(ref);
    const track = ytdlpSource.captionTrack(details, undefined);
    if (!track) throw new Error(`${url} has no caption track`);
    const captions = await ytdlpSource.captions(details, track);
    return (captions?.segments ?? []).map((segment) => segment.text).join(" ");
  }

  beforeAll(async () => {
    youtube = await FakeYoutube.start();
    youtube.serveRecordedVideos();
    const guard = await startEgressGuard({ allowPrivateTargets: true, logger });
    const parser = new IsolatedParser({ deadlineMs: parseDeadlineMs });
    ytdlpSource = new YtdlpSource({
      engine,
      absentAdvice: "",
      egress: guard,
      parser,
      allowedExtractors: ["TikTok", "Twitter"],
      downloadMaxBytes: MiB,
      downloadTimeoutMs: 1_000,
    });
    const platforms: Pick<PlatformSources, "registry" | "check" | "close"> = {
      registry: new SourceRegistry([ytdlpSource]),
      check: async () => {},
      close: async () => {
        await Promise.all([guard.close(), parser.close()]);
      },
    };
    server = await startAudioServer({ workers: 0, youtube, platforms, credits: 100, parseDeadlineMs });
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    await youtube?.close();
  });

  it("answers 200 with every cue of a 10 MB WebVTT file of 370,000 cues read through yt-dlp, which answered 500", async () => {
    const file = vttOf(counts.vtt);
    expect(file.length).toBeLessThan(10 * MiB);
    const video = tiktokPost("7400000000000000101", "vtt", file);
    const answer = await fetchTranscript(server, { video, format: "text" });
    expect(answer.status, answer.text.slice(0, 2000)).toBe(200);
    const data = (answer.body as Loose).data;
    expect(data).toMatchObject({ platform: "tiktok", source: "captions" });
    expectEveryCue(data.text, counts.vtt);
  });

  describe("through yt-dlp", () => {
    it("reads SubRip of 240,000 cues", async () => {
      expectEveryCue(await ytdlpText(tiktokPost("7400000000000000102", "srt", srtOf(counts.srt))), counts.srt);
    });

    it("reads json3 of 270,000 events", async () => {
      expectEveryCue(await ytdlpText(tiktokPost("7400000000000000103", "json3", json3Of(counts.json3))), counts.json3);
    });

    it("reads an HLS playlist of two WebVTT pieces of 130,000 cues each, as X lists its captions", async () => {
      const id = "1900000000000000901";
      const url = `https://x.com/verbatimtests/status/${id}`;
      const playlistUrl = "https://video.twimg.example/captions/playlist.m3u8";
      const piece = 130_000;
      infoDicts.set(url, {
        extractor_key: "Twitter",
        id,
        title: "two pieces",
        duration: 3_400,
        subtitles: { en: [{ ext: "vtt", url: playlistUrl }] },
      });
      captionFiles.set(playlistUrl, "#EXTM3U\n#EXTINF:1170,\npiece-0.vtt\n#EXTINF:1170,\npiece-1.vtt\n");
      captionFiles.set("https://video.twimg.example/captions/piece-0.vtt", vttOf(piece));
      captionFiles.set("https://video.twimg.example/captions/piece-1.vtt", vttOf(piece, piece));
      expectEveryCue(await ytdlpText(url), 2 * piece);
    });
  });

  describe("from YouTube", () => {
    it.each([
      ["srv3 of 370,000 paragraphs", recordedVideos.captioned, () => srv3Of(counts.srv3), counts.srv3],
      ["json3 of 270,000 events", recordedVideos.json3Captioned, () => json3Of(counts.json3), counts.json3],
    ])("reads %s", async (_, videoId, body, count) => {
      youtube.timedtext({ v: videoId, lang: "en" }, { body: body() });
      const captions = await youtubeCaptions(createYoutubeAdapter({ origin: youtube.origin }).captions, videoId, "en");
      expectEveryCue(captions.segments.map((segment) => segment.text).join(" "), count);
    });
  });

  describe("from a podcast feed's publisher transcript", () => {
    it("reads WebVTT of 370,000 cues", async () => {
      const host = server.host;
      host.serve("/many/vtt", { body: vttOf(counts.vtt), contentType: "text/vtt" });
      const feed = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<rss version="2.0" xmlns:podcast="https://podcastindex.org/namespace/1.0">',
        `<channel><title>Many cues</title><link>${host.url("/")}</link>`,
        "<item><title>Every cue</title><guid>many-vtt</guid>",
        `<enclosure url="${host.url("/many/vtt.mp3")}" type="audio/mpeg" length="1000"/>`,
        `<podcast:transcript url="${host.url("/many/vtt")}" type="text/vtt"/>`,
        "</item></channel></rss>",
      ].join("\n");
      host.serve("/feeds/many.xml", { body: feed, contentType: "application/rss+xml" });
      const episode = await server.adapters.audioSources.resolve(host.url("/feeds/many.xml"));
      const transcript = await server.adapters.audioSources.publisherTranscript(episode);
      expectEveryCue(transcript?.segments.map((segment) => segment.text).join(" "), counts.vtt);
    });
  });
});
