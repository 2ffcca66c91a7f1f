import { type PlatformDouble, startPlatformDouble } from "@verbatim/testkit/platform-double";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ClosableAudioSources, createAudioSources } from "../../src/adapters/audio-sources/index.ts";
import { createLogger } from "../../src/logger.ts";
import {
  createPodcastDirectory,
  type PodcastDirectory,
  withPodcastLinks,
} from "../../src/sources/podcast-directory/index.ts";
import { SourceError } from "../../src/sources/source-error.ts";
import { podcastDoubleEgress, podcastDoubleFolders } from "./podcast-double.ts";

// The podcast directory and the Spotify Web API as sources, over real HTTP to the platform
// double (packages/testkit/fixtures/platforms/{apple-podcasts,spotify}/SOURCE.md): what listings
// will call, and the Web API path a server with Spotify credentials takes.

const feedUrl = "https://podcasts.example/feeds/transcript-formats.xml";
const credentials = { clientId: "verbatim-test-client", clientSecret: "verbatim-test-secret" };

let double: PlatformDouble;
let directory: PodcastDirectory & { close(): Promise<void> };
let withCredentials: ClosableAudioSources;

beforeAll(async () => {
  double = await startPlatformDouble({ platforms: podcastDoubleFolders });
  const egress = podcastDoubleEgress(double);
  directory = createPodcastDirectory({ ...egress, spotify: null });
  withCredentials = withPodcastLinks(createAudioSources({ ...egress, logger: createLogger("silent") }), {
    ...egress,
    spotify: credentials,
  });
});

afterAll(async () => {
  await directory?.close();
  await withCredentials?.close();
  await double?.close();
});

/** The SourceError `promise` rejects with. */
async function sourceFailure(promise: Promise<unknown>): Promise<SourceError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!(error instanceof SourceError)) throw new Error(`expected a SourceError, got ${String(error)}`);
  return error;
}

/** The requests the double answered since `from`, as `METHOD url` (its CONNECTs left out). */
const askedSince = (from: number) =>
  double.requests
    .slice(from)
    .filter((request) => request.method !== "CONNECT")
    .map((request) => `${request.method} ${request.url}`);

describe("a Spotify link on a server with Web API credentials", () => {
  it("reads the episode from the Web API, with one token for every call, and never the page", async () => {
    const from = double.requests.length;
    for (let call = 0; call < 2; call++) {
      const source = await withCredentials.resolve("https://open.spotify.com/episode/0VerbatimTrailer000000?si=x");
      expect(source).toMatchObject({
        platform: "podcast",
        url: "https://open.spotify.com/episode/0VerbatimTrailer000000",
        title: "Do We Need a Podcast Trailer? (VTT)",
        podcast: { feedUrl, resolvedVia: "spotify", audioUrl: "https://podcasts.example/media/ep-vtt.mp3" },
        publisherTranscripts: [{ url: "https://podcasts.example/transcripts/example.vtt", type: "text/vtt" }],
      });
    }
    const asked = askedSince(from);
    expect(asked.filter((request) => request.startsWith("POST"))).toEqual([
      "POST https://accounts.spotify.com/api/token",
    ]);
    expect(asked.filter((request) => request.includes("api.spotify.com"))).toEqual([
      "GET https://api.spotify.com/v1/episodes/0VerbatimTrailer000000?market=US",
      "GET https://api.spotify.com/v1/episodes/0VerbatimTrailer000000?market=US",
    ]);
    expect(asked.filter((request) => request.includes("open.spotify.com"))).toEqual([]);
  });

  it("answers unavailable for an episode the Web API does not know", async () => {
    const error = await sourceFailure(
      withCredentials.resolve("https://open.spotify.com/episode/0VerbatimMissing000000"),
    );
    expect(error.kind).toBe("unavailable");
  });
});

describe("PodcastDirectory, for listings", () => {
  it("gives an Apple show's public feed and newest episodes by its id", async () => {
    const found = await directory.showFeed("1550000001");
    expect(found.feedUrl).toBe(feedUrl);
    expect(found.show).toMatchObject({
      showId: "1550000001",
      title: "Podcasting Q&A (Verbatim test feed)",
      episodeCount: 6,
    });
    expect(found.episodes.map((episode) => [episode.trackId, episode.guid])).toEqual([
      ["1000650000009", "verbatim-ep-bonus"],
      ["1000650000002", "verbatim-ep-vtt"],
      ["1000650000005", "verbatim-ep-plain"],
      ["1000650000003", "verbatim-ep-json"],
      ["1000650000004", null],
      ["1000650000001", "verbatim-ep-srt"],
    ]);
    expect(found.episodes[1]).toMatchObject({
      title: "Do We Need a Podcast Trailer? (VTT)",
      publishedAt: new Date("2020-10-09T04:30:00Z"),
      enclosureUrl: "https://podcasts.example/media/ep-vtt.mp3",
      durationSeconds: 11,
    });
  });

  it("gives the same feed for an Apple Podcasts show link and a Spotify show link", async () => {
    const apple = await directory.showFeedOfLink("https://podcasts.apple.com/us/podcast/podcasting-q-a/id1550000001");
    const spotify = await directory.showFeedOfLink("https://open.spotify.com/show/0VerbatimShowQandA0000");
    expect(apple.feedUrl).toBe(feedUrl);
    expect(spotify.feedUrl).toBe(feedUrl);
    expect(spotify.episodes).toHaveLength(6);
  });

  it("refuses a show Apple alone serves with no_public_feed and the nearest feeds", async () => {
    const error = await sourceFailure(directory.showFeed("1550000002"));
    expect(error.kind).toBe("no_public_feed");
    expect(error.candidates).toEqual([
      "https://feeds.example.org/exclusives-weekly.xml",
      "https://feeds.example.org/apple-talk.rss",
    ]);
  });

  it("answers unavailable for an id the directory does not list, and invalid_input for a link that names no show", async () => {
    expect((await sourceFailure(directory.showFeed("1559999999"))).kind).toBe("unavailable");
    expect((await sourceFailure(directory.showFeedOfLink("https://example.com/feed.xml"))).kind).toBe("invalid_input");
  });

  it("searches shows and episodes in the directory's order", async () => {
    const shows = await directory.search("Podcasting Q&A (Verbatim test feed)", { kind: "shows" });
    expect(shows.map((show) => [show.title, show.feedUrl])).toEqual([
      ["Podcasting Q&A Daily", "https://feeds.example.org/podcasting-qa-daily.xml"],
      ["Podcasting Q&A (Verbatim test feed)", feedUrl],
    ]);
    const episodes = await directory.search("Podcasting Q&A", { kind: "episodes" });
    expect(episodes.map((episode) => episode.title)).toEqual([
      "Do We Need a Podcast Trailer? (VTT)",
      "Ask Not (no transcript)",
      "I Am Your Father (JSON)",
    ]);
  });
});
