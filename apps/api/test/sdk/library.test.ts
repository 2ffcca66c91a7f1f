import { RequestError } from "@verbatim/sdk";
import { recordedVideos } from "@verbatim/testkit/fake-youtube";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sdkFor } from "../support/sdk.ts";
import { serverStartTimeoutMs, startYoutubeServer, type YoutubeTestServer } from "../support/youtube-server.ts";

// The SDK's library methods against a live server whose account fetched the recorded videos.

let yt: YoutubeTestServer;

beforeAll(async () => {
  yt = await startYoutubeServer({ credits: 100 });
  yt.fake.serveRecordedVideos();
  const verbatim = sdkFor(yt.server);
  await verbatim.transcripts.video({ video: recordedVideos.captioned });
  await verbatim.transcripts.video({ video: recordedVideos.json3Captioned });
}, serverStartTimeoutMs);
afterAll(async () => yt?.close());

describe("library", () => {
  it("list() iterates every entry across pages, newest first, free", async () => {
    const verbatim = sdkFor(yt.server);
    const entries = await verbatim.library.list({ limit: 1 }).toArray();
    expect(entries.map((entry) => entry.video_id)).toEqual([recordedVideos.json3Captioned, recordedVideos.captioned]);
    const pages = [];
    for await (const page of verbatim.library.list({ limit: 1 }).pages()) pages.push(page);
    expect(pages.map((page) => page.data.entries.length)).toEqual([1, 1]);
    expect(pages.every((page) => page.usage.credits_spent === 0)).toBe(true);
  });

  it("search() yields hits with highlighted snippets that link the moment", async () => {
    const verbatim = sdkFor(yt.server);
    const hits = await verbatim.library.search({ query: '"surface go"' }).toArray();
    expect(hits.map((hit) => hit.video_id)).toEqual([recordedVideos.captioned]);
    expect(hits[0]?.snippets[0]).toEqual({
      start: 0,
      url: `https://www.youtube.com/watch?v=${recordedVideos.captioned}&t=0s`,
      highlight: expect.stringContaining("<mark>Surface</mark> <mark>Go</mark>"),
    });
  });

  it("searchPage() throws a RequestError for an invalid cursor", async () => {
    const verbatim = sdkFor(yt.server);
    const error = await verbatim.library.searchPage({ query: "surface", cursor: "l1.tampered" }).catch((e) => e);
    expect(error).toBeInstanceOf(RequestError);
    expect(error).toMatchObject({ status: 400, code: "invalid_cursor", number: 1002 });
  });
});
