import { readFileSync } from "node:fs";
import { platformFixture } from "@verbatim/testkit/platform-double";
import { describe, expect, it } from "vitest";
import type { IsolatedParser } from "../../adapters/parsing/isolated-parser.ts";
import type { EgressCalls } from "./guarded-call.ts";
import { detailsFromInfoDict, type InfoDict } from "./info-dict.ts";
import { metadataFromInfoDict } from "./info-dict-metadata.ts";
import { YtdlpSource } from "./ytdlp-source.ts";

/** An info dict yt-dlp 2026.8.19 printed for a platform double's item (packages/testkit/fixtures/platforms/<platform>/info). */
function recorded(platform: string, scenario: string): InfoDict {
  return JSON.parse(readFileSync(platformFixture(`${platform}/info/${scenario}.json`), "utf8"));
}

// Only its offline caption choice is used: no call reaches yt-dlp, the guard or the parser.
const offline = new YtdlpSource({
  engine: null,
  absentAdvice: "",
  egress: {} as EgressCalls,
  parser: {} as IsolatedParser,
  allowedExtractors: [],
  downloadMaxBytes: 1,
  downloadTimeoutMs: 1,
});

function metadata(platform: string, info: InfoDict) {
  const ref = { platform, url: "https://example.invalid/item" };
  return metadataFromInfoDict(offline, detailsFromInfoDict(ref, info), info);
}

describe("metadataFromInfoDict, from recorded info dicts", () => {
  it("reads an X post: its text, hashtags, counts, author and pictures smallest first", () => {
    expect(metadata("x", recorded("x", "captions"))).toMatchObject({
      platform: "x",
      itemId: "1900000000000000001",
      description:
        "#history Ask not what your country can do for you: the inaugural address, captioned https://t.co/VerbatimT1",
      channel: { id: "1900000000000000900", name: "verbatimtests", url: "https://twitter.com/verbatimtests" },
      tags: ["history"],
      chapters: [],
      stats: { views: 5675, likes: 249, comments: 8 },
      liveStatus: null,
      captions: [{ language: "en", name: null, kind: "manual", translationTargets: [] }],
      podcast: null,
    });
    expect(metadata("x", recorded("x", "captions")).thumbnails.map((thumbnail) => thumbnail.width)).toEqual([
      150, 480, 480,
    ]);
  });

  it("reads a TikTok post's caption as its description and its secUid as the channel's id", () => {
    const tiktok = metadata("tiktok", recorded("tiktok", "captions"));
    expect(tiktok).toMatchObject({
      description: "Ask not what your country can do for you #speech #history",
      channel: { id: "MS4wLjABAAAAverbatimTestsSecUid", url: "https://www.tiktok.com/@verbatim.tests" },
      stats: { views: 5675, likes: 249, comments: 8 },
    });
    expect(tiktok.publishedAt?.toISOString()).toBe("2024-08-01T00:00:00.000Z");
  });

  it("reads chapters, ending each where the next starts and the last at the end of the media", () => {
    const info = {
      ...recorded("vimeo", "speech"),
      chapters: [
        { start_time: 5, end_time: 11, title: "What you can do" },
        { start_time: 0, end_time: 5, title: "Ask not" },
        { start_time: "6", title: "Not a time" },
        "not a chapter",
      ],
      live_status: "was_live",
    };
    expect(metadata("vimeo", info)).toMatchObject({
      chapters: [
        { title: "Ask not", start: 0, end: 5 },
        { title: "What you can do", start: 5, end: 11 },
      ],
      liveStatus: "was_live",
    });
  });

  it("keeps nothing of the wrong type: counts, tags, thumbnails and addresses are checked", () => {
    const info = {
      ...recorded("x", "captions"),
      view_count: "lots",
      like_count: -3,
      tags: ["ok", 7, { tag: "no" }],
      thumbnails: [{ url: "javascript:alert(1)" }, { url: "https://pbs.twimg.com/a.jpg", width: "wide" }],
      uploader_url: "file:///etc/passwd",
      channel_url: null,
    };
    expect(metadata("x", info)).toMatchObject({
      stats: { views: null, likes: null, comments: 8 },
      tags: ["ok"],
      thumbnails: [{ url: "https://pbs.twimg.com/a.jpg", width: null, height: null }],
      channel: { url: null },
    });
  });
});
