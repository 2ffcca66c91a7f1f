import { describe, expect, it } from "vitest";
import { episodeFactsOfPage, releaseDateOf } from "./spotify-page.ts";

describe("episodeFactsOfPage", () => {
  it("reads the show from og:description, the title from oEmbed and the date from music:release_date", () => {
    const meta = {
      "og:title": "From the archive: Why time management is ruining our lives",
      "og:description": "The Guardian's Audio Long Reads · Episode",
      "music:release_date": "2020-12-17",
    };
    expect(episodeFactsOfPage(meta, "From the archive: Why time management is ruining our lives")).toEqual({
      title: "From the archive: Why time management is ruining our lives",
      show: "The Guardian's Audio Long Reads",
      publisher: null,
      publishedAt: new Date("2020-12-17T00:00:00Z"),
    });
  });

  it("reads an older page's description, and a show name with its own middle dots", () => {
    expect(
      episodeFactsOfPage({ description: "Listen to this episode from A · B Radio on Spotify. Notes here." }, "Hello"),
    ).toMatchObject({ show: "A · B Radio", title: "Hello", publishedAt: null });
    expect(episodeFactsOfPage({ "og:description": "A · B Radio · Episode" }, "Hello")?.show).toBe("A · B Radio");
  });

  it("falls back to og:title without an oEmbed title, and names nothing without a show", () => {
    expect(episodeFactsOfPage({ "og:title": "Only a title", "og:description": "X · Episode" }, null)?.title).toBe(
      "Only a title",
    );
    expect(episodeFactsOfPage({ "og:title": "Only a title" }, "Only a title")).toBeNull();
    expect(episodeFactsOfPage({ "og:description": "Spotify – Web Player" }, "A title")).toBeNull();
  });
});

describe("releaseDateOf", () => {
  it.each([
    ["2020-12-17", "2020-12-17T00:00:00.000Z"],
    ["2026-09-08T22:02:00Z", "2026-09-08T22:02:00.000Z"],
    ["2020-12", null],
    ["2020", null],
    ["yesterday", null],
    [undefined, null],
  ])("reads %j as %j", (value, expected) => {
    expect(releaseDateOf(value)?.toISOString() ?? null).toBe(expected);
  });
});
