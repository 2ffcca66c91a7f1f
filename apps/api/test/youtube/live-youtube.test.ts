import { describe, expect, it } from "vitest";
import { createYoutubeAdapter } from "../../src/adapters/youtube/index.ts";

/** "Me at the zoo", the first YouTube video: public, short, with English captions for years. */
const firstVideo = "jNQXAC9IVRw";

describe.skipIf(process.env.LIVE_UPSTREAMS !== "1")("live YouTube (LIVE_UPSTREAMS=1)", () => {
  it("fetches the English captions of a public video through youtubei.js", { timeout: 60_000 }, async () => {
    const youtube = createYoutubeAdapter({
      ...(process.env.VERBATIM_PROXY_URLS ? { proxyUrls: process.env.VERBATIM_PROXY_URLS.split(",") } : {}),
    });
    const captions = await youtube.captions.fetchCaptions(firstVideo, "en");
    expect(captions.details).toMatchObject({ videoId: firstVideo, title: "Me at the zoo", channel: "jawed" });
    expect(captions.language).toMatch(/^en/);
    expect(captions.segments.length).toBeGreaterThan(0);
    expect(captions.segments.map((segment) => segment.text).join(" ")).toMatch(/elephants/i);
  });
});
