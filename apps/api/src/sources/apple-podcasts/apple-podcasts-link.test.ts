import { describe, expect, it } from "vitest";
import { parseApplePodcastsLink } from "./apple-podcasts-link.ts";

describe("parseApplePodcastsLink", () => {
  it.each([
    // yt-dlp's applepodcasts _TESTS
    [
      "https://podcasts.apple.com/us/podcast/207-whitney-webb-returns/id1135137367?i=1000482637777",
      { country: "us", showId: "1135137367", episodeId: "1000482637777" },
    ],
    [
      "https://podcasts.apple.com/podcast/207-whitney-webb-returns/id1135137367?i=1000482637777",
      { country: "us", showId: "1135137367", episodeId: "1000482637777" },
    ],
    [
      "https://podcasts.apple.com/podcast/id1135137367?i=1000482637777",
      { country: "us", showId: "1135137367", episodeId: "1000482637777" },
    ],
    ["podcasts.apple.com/GB/podcast/some-show/id42/?uo=4&i=7", { country: "gb", showId: "42", episodeId: "7" }],
    ["https://itunes.apple.com/de/podcast/some-show/id42?mt=2&i=7", { country: "de", showId: "42", episodeId: "7" }],
  ])("reads the episode of %s", (input, expected) => {
    expect(parseApplePodcastsLink(input)).toEqual({
      kind: "episode",
      ...expected,
      url: `https://podcasts.apple.com/${expected.country}/podcast/id${expected.showId}?i=${expected.episodeId}`,
    });
  });

  it("reads a link without ?i= as the show", () => {
    expect(parseApplePodcastsLink("https://podcasts.apple.com/us/podcast/the-daily/id1200361736")).toEqual({
      kind: "show",
      country: "us",
      showId: "1200361736",
      url: "https://podcasts.apple.com/us/podcast/id1200361736",
    });
  });

  it("tells an episode without its show's id, and other Apple Podcasts pages, apart", () => {
    expect(
      parseApplePodcastsLink("https://podcasts.apple.com/podcast/207-whitney-webb-returns?i=1000482637777"),
    ).toMatchObject({
      kind: "episode-without-show",
    });
    expect(parseApplePodcastsLink("https://podcasts.apple.com/us/channel/some-channel/id6442463222")).toMatchObject({
      kind: "other",
    });
  });

  it("leaves other hosts, the directory's own addresses and addresses with credentials alone", () => {
    for (const input of [
      "https://example.com/us/podcast/show/id42?i=7",
      "https://itunes.apple.com/lookup?id=42&entity=podcastEpisode",
      "https://user:secret@podcasts.apple.com/us/podcast/show/id42?i=7",
      "ftp://podcasts.apple.com/us/podcast/show/id42?i=7",
      "not a link",
    ]) {
      expect(parseApplePodcastsLink(input)).toBeNull();
    }
  });
});
