import { readFileSync } from "node:fs";
import { platformFixture } from "@verbatim/testkit/platform-double";
import { describe, expect, it } from "vitest";
import { SourceError } from "../source-error.ts";
import { readDirectoryAnswer } from "./directory-answers.ts";

const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(platformFixture(`apple-podcasts/directory/${name}`), "utf8"));

describe("readDirectoryAnswer", () => {
  it("reads a lookup's show and its episodes apart, in the directory's order", () => {
    const { shows, episodes } = readDirectoryAnswer(fixture("lookup-podcasting-qa.json"), "a lookup");
    expect(shows).toEqual([
      {
        showId: "1550000001",
        title: "Podcasting Q&A (Verbatim test feed)",
        author: "Verbatim Tests",
        feedUrl: "https://podcasts.example/feeds/transcript-formats.xml",
        url: "https://podcasts.apple.com/us/podcast/verbatim/id1550000001?uo=4",
        artworkUrl: "https://is1-ssl.mzstatic.com/image/thumb/Podcasts/v4/verbatim/1550000001/600x600bb.jpg",
        episodeCount: 6,
      },
    ]);
    expect(episodes).toHaveLength(6);
    expect(episodes[4]).toEqual({
      trackId: "1000650000004",
      showId: "1550000001",
      showTitle: "Podcasting Q&A (Verbatim test feed)",
      feedUrl: "https://podcasts.example/feeds/transcript-formats.xml",
      guid: null,
      title: "Ten Things We Wish We Knew (HTML)",
      publishedAt: new Date("2020-10-06T04:30:00Z"),
      enclosureUrl: "https://dts.podtrac.com/redirect.mp3/podcasts.example/media/ep-html.mp3",
      durationSeconds: 755,
      url: "https://podcasts.apple.com/us/podcast/verbatim/id1550000001?i=1000650000004&uo=4",
    });
  });

  it("reads a show without feedUrl as one without a public feed", () => {
    const { shows } = readDirectoryAnswer(fixture("lookup-apple-exclusive.json"), "a lookup");
    expect(shows[0]).toMatchObject({ showId: "1550000002", feedUrl: null });
  });

  it("leaves out results of other kinds, without ids, and addresses that are not http(s)", () => {
    const { shows, episodes } = readDirectoryAnswer(
      {
        resultCount: 5,
        results: [
          { wrapperType: "track", kind: "song", trackId: 1, trackName: "A song" },
          { wrapperType: "track", kind: "podcast", collectionName: "No id" },
          {
            wrapperType: "track",
            kind: "podcast",
            collectionId: 7,
            collectionName: "Show",
            feedUrl: "file:///etc/passwd",
          },
          { wrapperType: "podcastEpisode", trackId: -3, trackName: "Negative id" },
          { wrapperType: "podcastEpisode", trackId: 9, releaseDate: "not a date", episodeUrl: "javascript:alert(1)" },
          "not a result",
        ],
      },
      "a search",
    );
    expect(shows).toEqual([expect.objectContaining({ showId: "7", feedUrl: null })]);
    expect(episodes).toEqual([expect.objectContaining({ trackId: "9", publishedAt: null, enclosureUrl: null })]);
  });

  it("refuses an answer without a list of results as unparseable", () => {
    for (const answer of [null, [], { results: "none" }, "{}"]) {
      const error = (() => {
        try {
          readDirectoryAnswer(answer, "a lookup of the show 1");
        } catch (caught) {
          return caught;
        }
      })();
      expect(error).toBeInstanceOf(SourceError);
      expect((error as SourceError).kind).toBe("unparseable");
    }
  });

  it("reads at most 200 results, Apple's own cap", () => {
    const results = Array.from({ length: 250 }, (_, index) => ({ wrapperType: "podcastEpisode", trackId: index + 1 }));
    expect(readDirectoryAnswer({ results }, "a lookup").episodes).toHaveLength(200);
  });
});
