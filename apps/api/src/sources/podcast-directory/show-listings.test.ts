import { describe, expect, it } from "vitest";
import type { FeedDocuments } from "../feeds/feed-documents.ts";
import { SourceError } from "../source-error.ts";
import type { SpotifyWebApi } from "../spotify/spotify-web-api.ts";
import type { PodcastDirectory } from "./index.ts";
import { PodcastShowListings } from "./show-listings.ts";

// Matching is offline: neither the directory nor the feed reader is called, so none is needed.
const offline = {} as PodcastDirectory;
const noDocuments = {} as FeedDocuments;
const shows = new PodcastShowListings(offline, noDocuments, null);
const withCredentials = new PodcastShowListings(offline, noDocuments, {} as SpotifyWebApi);

describe("PodcastShowListings.match, offline", () => {
  it.each([
    [
      "an Apple Podcasts show",
      "https://podcasts.apple.com/gb/podcast/name/id1550000001",
      "apple",
      "https://podcasts.apple.com/gb/podcast/id1550000001",
    ],
    [
      "an Apple Podcasts show without its scheme",
      "podcasts.apple.com/us/podcast/id1550000001",
      "apple",
      "https://podcasts.apple.com/us/podcast/id1550000001",
    ],
    [
      "a Spotify show with a locale and a query",
      "https://open.spotify.com/intl-de/show/0VerbatimShowQandA0000?si=x",
      "spotify",
      "https://open.spotify.com/show/0VerbatimShowQandA0000",
    ],
  ])("lists %s as a podcast show bound to its canonical link", (_what, channel, platform, url) => {
    const listing = shows.match({ kind: "channel", channel });
    expect(listing).toMatchObject({
      platform,
      monitorPlatform: "podcast",
      options: [],
      identity: { kind: "show", url },
    });
  });

  it.each([
    [
      "an Apple Podcasts episode",
      "https://podcasts.apple.com/us/podcast/id1550000001?i=1000650000002",
      "item_not_list",
    ],
    ["a Spotify episode", "https://open.spotify.com/episode/0VerbatimAskNot0000000", "item_not_list"],
    ["another Apple Podcasts page", "https://podcasts.apple.com/us/browse", "invalid_input"],
    ["Spotify music", "https://open.spotify.com/track/4uLU6hMCjMI75M1A2tKUQC", "unsupported"],
  ])("refuses %s as %s", (_what, channel, kind) => {
    const found = shows.match({ kind: "channel", channel });
    expect(found).toBeInstanceOf(SourceError);
    expect((found as SourceError).kind).toBe(kind);
  });

  it("leaves feeds, YouTube and playlists to other sources", () => {
    expect(shows.match({ kind: "channel", channel: "https://podcasts.example/feed.xml" })).toBeNull();
    expect(shows.match({ kind: "channel", channel: "@handle" })).toBeNull();
    expect(
      shows.match({ kind: "playlist", playlist: "https://podcasts.apple.com/us/podcast/id1550000001" }),
    ).toBeNull();
  });

  it("searches apple and rss, leaves youtube and the default to others, and refuses playlists", () => {
    expect(shows.match({ kind: "search", query: "q", type: "video", platform: "apple" })).toMatchObject({
      platform: "apple",
    });
    expect(shows.match({ kind: "search", query: "q", type: "channel", platform: "rss" })).toMatchObject({
      platform: "rss",
    });
    expect(shows.match({ kind: "search", query: "q", type: "video", platform: "youtube" })).toBeNull();
    expect(shows.match({ kind: "search", query: "q", type: "video" })).toBeNull();
    const playlists = shows.match({ kind: "search", query: "q", type: "playlist", platform: "apple" });
    expect((playlists as SourceError).kind).toBe("unsupported");
  });

  it("searches spotify only with the Web API's credentials, naming them where the operator has not set them", () => {
    const without = shows.match({ kind: "search", query: "q", type: "video", platform: "spotify" }) as SourceError;
    expect(without.kind).toBe("unsupported");
    expect(without.message).toMatch(/VERBATIM_SPOTIFY_CLIENT_ID and VERBATIM_SPOTIFY_CLIENT_SECRET/);
    expect(withCredentials.match({ kind: "search", query: "q", type: "video", platform: "spotify" })).toMatchObject({
      platform: "spotify",
      identity: { kind: "search", platform: "spotify", query: "q", type: "video" },
    });
    const playlists = withCredentials.match({ kind: "search", query: "q", type: "playlist", platform: "spotify" });
    expect((playlists as SourceError).kind).toBe("unsupported");
    expect([shows.searchPlatforms, withCredentials.searchPlatforms]).toEqual([
      ["apple", "rss"],
      ["spotify", "apple", "rss"],
    ]);
  });
});
