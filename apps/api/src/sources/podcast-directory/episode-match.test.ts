import { describe, expect, it } from "vitest";
import { type EpisodeClue, matchEpisode, normalisedTitle } from "./episode-match.ts";

const episode = (guid: string | null, title: string, publishedAt: string, enclosure: string) => ({
  guid,
  title,
  publishedAt: new Date(publishedAt),
  enclosureUrl: `https://media.example/${enclosure}`,
});

const feed = [
  episode("guid-3", "Episode 3: The Big One!", "2024-03-15T06:00:00Z", "3.mp3"),
  episode("guid-2", "Café & Crème", "2024-03-08T06:00:00Z", "2.mp3"),
  episode("guid-2b", "Rerun: Hello", "2024-03-01T06:00:00Z", "2b.mp3"),
  episode("guid-1b", "Rerun: Hello", "2023-03-01T06:00:00Z", "1b.mp3"),
  episode(null, "No Guid Here", "2024-02-01T06:00:00Z", "0.mp3"),
];

const clue = (fields: Partial<EpisodeClue>): EpisodeClue => ({
  guid: null,
  enclosureUrl: null,
  title: null,
  publishedAt: null,
  ...fields,
});

describe("matchEpisode", () => {
  it("takes the item with the clue's GUID first, whatever its title says", () => {
    expect(matchEpisode(feed, clue({ guid: "guid-2", title: "Episode 3: The Big One!" }))).toBe(feed[1]);
  });

  it("takes the item with the clue's enclosure when no GUID matches", () => {
    expect(matchEpisode(feed, clue({ guid: "unknown", enclosureUrl: "https://media.example/0.mp3" }))).toBe(feed[4]);
  });

  it("takes the normalised title within a day and a half of the date, the nearest when a title recurs", () => {
    expect(matchEpisode(feed, clue({ title: "episode 3 — the big one", publishedAt: new Date("2024-03-15") }))).toBe(
      feed[0],
    );
    expect(matchEpisode(feed, clue({ title: "Rerun: Hello", publishedAt: new Date("2023-03-02T12:00:00Z") }))).toBe(
      feed[3],
    );
    expect(matchEpisode(feed, clue({ title: "cafe and creme", publishedAt: new Date("2024-03-08") }))).toBeUndefined();
    expect(matchEpisode(feed, clue({ title: "Café and Crème", publishedAt: new Date("2024-03-08") }))).toBe(feed[1]);
  });

  it("refuses a title whose date is too far off, or that recurs when no date tells which", () => {
    expect(
      matchEpisode(feed, clue({ title: "Café & Crème", publishedAt: new Date("2024-03-10T00:00:00Z") })),
    ).toBeUndefined();
    expect(matchEpisode(feed, clue({ title: "Rerun: Hello" }))).toBeUndefined();
    expect(matchEpisode(feed, clue({ title: "Café & Crème" }))).toBe(feed[1]);
  });

  it("finds nothing without a clue to go by", () => {
    expect(matchEpisode(feed, clue({}))).toBeUndefined();
    expect(matchEpisode(feed, clue({ title: "!!!" }))).toBeUndefined();
  });
});

describe("normalisedTitle", () => {
  it.each([
    ["Episode 3: The Big One!", "episode 3 the big one"],
    ["Café & Crème", "café and crème"],
    ["  Ｆｕｌｌｗｉｄｔｈ  ", "fullwidth"],
    ["ゆる言語学ラジオ #12", "ゆる言語学ラジオ 12"],
  ])("writes %j as %j", (title, normalised) => {
    expect(normalisedTitle(title)).toBe(normalised);
  });
});
