import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { probeDuration } from "../../src/adapters/media/decoder.ts";
import { createYoutubeAdapter } from "../../src/adapters/youtube/index.ts";
import { youtubeCaptions } from "../support/youtube-captions.ts";

/** "Me at the zoo", the first YouTube video: public, short, with English captions for years. */
const firstVideo = "jNQXAC9IVRw";

describe.skipIf(process.env.LIVE_UPSTREAMS !== "1")("live YouTube (LIVE_UPSTREAMS=1)", () => {
  const youtube = createYoutubeAdapter({
    ...(process.env.VERBATIM_PROXY_URLS ? { proxyUrls: process.env.VERBATIM_PROXY_URLS.split(",") } : {}),
  });

  it("fetches the English captions of a public video through youtubei.js", { timeout: 60_000 }, async () => {
    const captions = await youtubeCaptions(youtube.captions, firstVideo, "en");
    expect(captions.details).toMatchObject({ videoId: firstVideo, title: "Me at the zoo", channel: "jawed" });
    expect(captions.language).toMatch(/^en/);
    expect(captions.segments.length).toBeGreaterThan(0);
    expect(captions.segments.map((segment) => segment.text).join(" ")).toMatch(/elephants/i);
  });

  it("downloads the audio stream of a public video for speech recognition", { timeout: 120_000 }, async () => {
    const audio = await youtube.audio.resolveAudio(firstVideo);
    expect(audio.stream.mimeType).toMatch(/^audio\//);
    const dir = await mkdtemp(join(tmpdir(), "verbatim-live-"));
    try {
      const downloaded = await youtube.audio.download(audio.stream, join(dir, "media"));
      expect(downloaded.bytes).toBeGreaterThan(10_000);
      expect(await probeDuration(join(dir, "media"))).toBeCloseTo(19, -1);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("lists a channel's videos tab from its @handle", { timeout: 60_000 }, async () => {
    const page = await youtube.lists.firstPage({ kind: "channel", channel: "@jawed", tab: "videos", sort: "newest" });
    expect(page.rows.map((row) => ("videoId" in row ? row.videoId : null))).toContain(firstVideo);
  });

  it("searches videos and follows the continuation to a second page", { timeout: 60_000 }, async () => {
    const target = { kind: "search", query: "me at the zoo", type: "video" } as const;
    const first = await youtube.lists.firstPage(target);
    expect(first.rows.length).toBeGreaterThan(0);
    if (first.continuation === null) throw new Error("a popular search answered a single page");
    expect((await youtube.lists.nextPage(target, first.continuation)).rows.length).toBeGreaterThan(0);
  });
});
