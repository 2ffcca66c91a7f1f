import { describe, expect, it } from "vitest";
import type { DirectoryShow } from "./directory-answers.ts";
import { nearestFeeds, showsNamed } from "./show-match.ts";

const show = (showId: string, title: string, author: string | null, feedUrl: string | null): DirectoryShow => ({
  showId,
  title,
  author,
  feedUrl,
  url: null,
  artworkUrl: null,
  episodeCount: null,
});

describe("showsNamed", () => {
  it("takes only shows of the same normalised name with a feed: a name that contains it is another show", () => {
    const found = [
      show("1", "Science Vs", "Spotify Studios", "https://feeds.example.org/science-vs.xml"),
      show("2", "SCIENCE!", "Radio A", "https://feeds.example.org/science-a.xml"),
      show("3", "Science", "Radio B", null),
    ];
    expect(showsNamed(found, "Science", null).map((match) => match.showId)).toEqual(["2"]);
    expect(showsNamed(found.slice(0, 1), "Science", null)).toEqual([]);
  });

  it("puts the publisher's show first when several feeds bear the name, and a feed listed twice once", () => {
    const found = [
      show("1", "The Daily", "Someone Else", "https://feeds.example.org/1.xml"),
      show("2", "The Daily", "The New York Times", "https://feeds.example.org/2.xml"),
      show("3", "The Daily", "The New York Times", "https://feeds.example.org/2.xml"),
    ];
    expect(showsNamed(found, "The Daily", "The New York Times").map((match) => match.showId)).toEqual(["2", "1"]);
    expect(showsNamed(found, "The Daily", null).map((match) => match.showId)).toEqual(["1", "2"]);
  });
});

describe("nearestFeeds", () => {
  it("lists the first three distinct feeds in the directory's order", () => {
    const found = [
      show("1", "A", null, "https://feeds.example.org/a.xml"),
      show("2", "B", null, null),
      show("3", "C", null, "https://feeds.example.org/a.xml"),
      show("4", "D", null, "https://feeds.example.org/d.xml"),
      show("5", "E", null, "https://feeds.example.org/e.xml"),
      show("6", "F", null, "https://feeds.example.org/f.xml"),
    ];
    expect(nearestFeeds(found)).toEqual([
      "https://feeds.example.org/a.xml",
      "https://feeds.example.org/d.xml",
      "https://feeds.example.org/e.xml",
    ]);
  });
});
