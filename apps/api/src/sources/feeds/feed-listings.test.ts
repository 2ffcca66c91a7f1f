import { readFileSync } from "node:fs";
import { podcastFixture } from "@verbatim/testkit/fake-podcast-host";
import { afterAll, describe, expect, it } from "vitest";
import { type FeedEpisode, parseFeedText } from "../../adapters/audio-sources/feeds.ts";
import { mediaVideoId } from "../../adapters/audio-sources/web-audio-sources.ts";
import { createPublicFetch } from "../../adapters/net/public-fetch.ts";
import { IsolatedParser } from "../../adapters/parsing/isolated-parser.ts";
import { SourceError } from "../source-error.ts";
import { FeedDocuments } from "./feed-documents.ts";
import { episodeRows, FeedListings } from "./feed-listings.ts";

const feedUrl = new URL("https://podcasts.example/show/feed.xml");
const show = parseFeedText(readFileSync(podcastFixture("verbatim/show-feed.xml"), "utf8"), feedUrl);
if (!show) throw new Error("the authored show does not parse");

// Offline: matching and markers never fetch, so the documents' fetch and parser are never used.
const fetch = createPublicFetch({ allowPrivateTargets: false });
const parser = new IsolatedParser();
const feeds = new FeedListings(
  new FeedDocuments(fetch, parser, { feedMaxBytes: 1, documentTimeoutMs: 1, maxFeedCandidates: 1 }),
);
afterAll(async () => {
  await fetch.close();
  await parser.close();
});

function episode(title: string, publishedAt: string | null): FeedEpisode {
  return {
    guid: title,
    title,
    link: null,
    publishedAt: publishedAt === null ? null : new Date(publishedAt),
    enclosureUrl: `https://podcasts.example/media/${title}.mp3`,
    enclosureType: "audio/mpeg",
    durationSeconds: null,
    imageUrl: null,
    transcripts: [],
    description: null,
    keywords: [],
    chaptersUrl: null,
  };
}

describe("episodeRows", () => {
  it("lists the authored show newest first, each row the id its audio file's transcript carries", () => {
    const rows = episodeRows(show);
    expect(rows.map((row) => row.title)).toEqual(["Episode 2: What you can do", "Episode 1: Ask not"]);
    for (const row of rows) expect(row.videoId).toBe(mediaVideoId(new URL(row.url)));
    expect(rows[0]).toMatchObject({ duration: 11, publishedAt: "2026-03-09T06:00:00.000Z", stats: null });
  });

  it("puts undated episodes after the dated ones, in the feed's order", () => {
    const rows = episodeRows({
      ...show,
      episodes: [
        episode("a", null),
        episode("b", "2026-01-01T00:00:00Z"),
        episode("c", null),
        episode("d", "2026-02-01T00:00:00Z"),
      ],
    });
    expect(rows.map((row) => row.title)).toEqual(["d", "b", "a", "c"]);
  });

  it("titles an episode without a title by its file's name", () => {
    const [row] = episodeRows({
      ...show,
      episodes: [{ ...episode("x", null), title: null, enclosureUrl: "https://podcasts.example/media/ask%20not.mp3" }],
    });
    expect(row?.title).toBe("ask not.mp3");
  });
});

describe("FeedListings.match, offline", () => {
  it.each([
    ["a media file", "https://podcasts.example/media/episode-1.mp3", "item_not_list"],
    ["an address with credentials", "https://user:secret@podcasts.example/feed.xml", "invalid_input"],
  ])("refuses %s as %s", (_what, channel, kind) => {
    const found = feeds.match({ kind: "channel", channel });
    expect(found).toBeInstanceOf(SourceError);
    expect((found as SourceError).kind).toBe(kind);
  });

  it.each(["@handle", "podcasts.example/feed.xml", "ftp://podcasts.example/feed.xml"])(
    "leaves %s to other sources",
    (channel) => {
      expect(feeds.match({ kind: "channel", channel })).toBeNull();
    },
  );

  it("never claims a playlist or a search", () => {
    expect(feeds.match({ kind: "playlist", playlist: feedUrl.href })).toBeNull();
    expect(feeds.match({ kind: "search", query: "x", type: "video", platform: "rss" })).toBeNull();
  });

  it("marks an episode by its row's videoId or url, and nothing else", () => {
    const listing = feeds.match({ kind: "channel", channel: feedUrl.href });
    if (!listing || listing instanceof SourceError) throw new Error("the feed was not matched");
    const [row] = episodeRows(show);
    expect(listing.markerOf(row?.videoId ?? "")).toEqual({ itemId: row?.videoId });
    expect(listing.markerOf(row?.url ?? "")).toEqual({ itemId: row?.videoId });
    expect(listing.markerOf("dQw4w9WgXcQ")).toMatchObject({ issue: expect.stringMatching(/neither a row's videoId/) });
    expect(listing).toMatchObject({ platform: "rss", monitorPlatform: "podcast", options: [] });
  });
});
