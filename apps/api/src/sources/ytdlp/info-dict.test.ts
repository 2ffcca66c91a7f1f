import { readFileSync } from "node:fs";
import { platformFixture } from "@verbatim/testkit/platform-double";
import { describe, expect, it } from "vitest";
import { SourceError } from "../source-error.ts";
import { detailsFromInfoDict, type InfoDict } from "./info-dict.ts";

/** An info dict yt-dlp 2026.8.19 printed for a platform double's item (packages/testkit/fixtures/platforms/<platform>/info). */
function recorded(platform: string, scenario: string): InfoDict {
  return JSON.parse(readFileSync(platformFixture(`${platform}/info/${scenario}.json`), "utf8"));
}

function details(platform: string, scenario: string, url = "https://example.invalid/item") {
  return detailsFromInfoDict({ platform, url }, recorded(platform, scenario));
}

describe("detailsFromInfoDict, from recorded info dicts", () => {
  it.each([
    // platform, scenario, item id, creator, canonical URL
    [
      "tiktok",
      "captions",
      "7400000000000000001",
      "verbatim.tests",
      "https://www.tiktok.com/@verbatim.tests/video/7400000000000000001",
    ],
    ["x", "captions", "1900000000000000001", "verbatimtests", "https://x.com/verbatimtests/status/1900000000000000001"],
    ["instagram", "speech", "Chunk8-jurw", "instagram", "https://www.instagram.com/reel/Chunk8-jurw/"],
    ["vimeo", "captions", "76979871", "Vimeo", "https://player.vimeo.com/video/76979871"],
    [
      "facebook",
      "captions",
      "3676516585958356",
      "RADIO KICKS FM",
      "https://www.facebook.com/radiokicksfm/videos/3676516585958356/",
    ],
    ["dailymotion", "captions", "x8jfk01", "Deadline", "https://www.dailymotion.com/video/x8jfk01"],
    ["twitch", "speech", "v2300000001", "VerbatimTests", "https://www.twitch.tv/videos/2300000001"],
    [
      "twitch",
      "clip",
      "VerbatimTestsAskNotClip-Jfk1961Inaugural",
      "VerbatimCurator",
      "https://clips.twitch.tv/VerbatimTestsAskNotClip-Jfk1961Inaugural",
    ],
    [
      "loom",
      "captions",
      "c0ffee00000000000000000000000001",
      "Verbatim Tests",
      "https://www.loom.com/share/c0ffee00000000000000000000000001",
    ],
  ])(
    "reads %s (%s): the id people know, the creator as the platform names them, the canonical URL",
    (platform, scenario, itemId, channel, url) => {
      const read = details(platform, scenario);
      expect(read).toMatchObject({ itemId, channel, url, durationSeconds: 11 });
      expect(read.title).toEqual(expect.any(String));
    },
  );

  it("takes the publication time from the timestamp, else the upload day", () => {
    expect(details("tiktok", "captions").publishedAt?.toISOString()).toBe("2024-08-01T00:00:00.000Z");
    const dayOnly = { ...recorded("dailymotion", "captions"), timestamp: null, upload_date: "20170501" };
    expect(
      detailsFromInfoDict(
        { platform: "dailymotion", url: "https://example.invalid" },
        dayOnly,
      ).publishedAt?.toISOString(),
    ).toBe("2017-05-01T00:00:00.000Z");
    expect(details("vimeo", "captions").publishedAt).toBeNull();
  });

  it("lists caption tracks with BCP-47 languages and the kind the platform means", () => {
    expect(details("tiktok", "captions").captions).toEqual([
      expect.objectContaining({ language: "en-US", kind: "auto", format: "vtt" }),
    ]);
    expect(details("facebook", "captions").captions).toEqual([
      expect.objectContaining({ language: "en-US", kind: "manual", format: "srt" }),
    ]);
    const vimeo = details("vimeo", "captions").captions;
    expect(vimeo).toEqual([
      expect.objectContaining({ language: "en", kind: "manual", format: "vtt" }),
      expect.objectContaining({ language: "en", kind: "auto", format: "vtt" }),
    ]);
    expect(details("loom", "captions").captions).toEqual([expect.objectContaining({ language: "en", kind: "auto" })]);
    expect(details("tiktok", "speech").captions).toEqual([]);
  });

  it("keeps no track it cannot parse and nothing that is not captions", () => {
    const info = {
      ...recorded("vimeo", "captions"),
      subtitles: {
        live_chat: [{ ext: "json", url: "https://chat.example/live" }],
        de: [{ ext: "ttml", url: "https://captions.example/de.ttml" }],
        fr: [{ ext: "vtt", url: "javascript:alert(1)" }],
        "<script>": [{ ext: "vtt", url: "https://captions.example/x.vtt" }],
      },
      automatic_captions: {},
    };
    expect(detailsFromInfoDict({ platform: "vimeo", url: "https://example.invalid" }, info).captions).toEqual([]);
  });

  it("reads a post of several videos as its first", () => {
    const video = recorded("x", "speech");
    const post = { _type: "playlist", extractor_key: "Twitter", entries: [video, { ...video, id: "other" }] };
    expect(detailsFromInfoDict({ platform: "x", url: "https://x.com/a/status/1" }, post).itemId).toBe(
      "1900000000000000002",
    );
  });

  it("refuses live and upcoming items as live_stream, and an item without an id as unparseable", () => {
    const live = { ...recorded("twitch", "speech"), is_live: true };
    expect(() => detailsFromInfoDict({ platform: "twitch", url: "https://www.twitch.tv/x" }, live)).toThrow(
      expect.objectContaining({ kind: "live_stream" }),
    );
    const upcoming = { ...recorded("twitch", "speech"), live_status: "is_upcoming" };
    expect(() => detailsFromInfoDict({ platform: "twitch", url: "https://www.twitch.tv/x" }, upcoming)).toThrow(
      SourceError,
    );
    expect(() =>
      detailsFromInfoDict({ platform: "loom", url: "https://www.loom.com/share/x" }, { extractor_key: "Loom" }),
    ).toThrow(expect.objectContaining({ kind: "unparseable" }));
  });

  it("reads hostile fields as absent: wrong types, huge strings, non-http addresses", () => {
    const hostile = {
      extractor_key: "Vimeo",
      id: "1",
      title: "x".repeat(10_000),
      uploader: 42,
      duration: "11",
      timestamp: Number.NaN,
      thumbnail: "file:///etc/passwd",
      webpage_url: "javascript:alert(1)",
      language: "en; DROP TABLE",
      subtitles: "not a map",
    };
    const read = detailsFromInfoDict({ platform: "vimeo", url: "https://vimeo.com/1" }, hostile);
    expect(read).toMatchObject({
      itemId: "1",
      url: "https://vimeo.com/1",
      channel: null,
      durationSeconds: null,
      publishedAt: null,
      thumbnailUrl: null,
      language: null,
      captions: [],
    });
    expect(read.title?.length).toBe(2_000);
  });
});
