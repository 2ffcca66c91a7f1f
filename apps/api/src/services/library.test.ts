import { describe, expect, it } from "vitest";
import { passagesOf, segmentsOfPassages } from "./library-passages.ts";
import { linkAt } from "./library-snippets.ts";

function segments(...timed: Array<[number, string]>) {
  return timed.map(([start, text]) => ({ start, duration: 2, text }));
}

describe("passagesOf", () => {
  it("keeps each segment's start and its offset in the passage's text", () => {
    const [passage, ...rest] = passagesOf(segments([0, "Hello  there,"], [2.5, "\tgeneral\nKenobi."]));
    expect(rest).toEqual([]);
    expect(passage).toEqual({
      position: 0,
      text: "Hello there, general Kenobi.",
      starts: [0, 2.5],
      offsets: [0, 13],
    });
    expect(passage?.text.slice(passage.offsets[1])).toBe("general Kenobi.");
  });

  it("starts a new passage once a minute of speech has passed, at a segment's start", () => {
    const passages = passagesOf(segments([0, "one"], [30, "two"], [59.9, "three"], [60, "four"], [125, "five"]));
    expect(passages.map((passage) => [passage.position, passage.starts])).toEqual([
      [0, [0, 30, 59.9]],
      [1, [60]],
      [2, [125]],
    ]);
  });

  it("starts a new passage once the text is long, however short the time", () => {
    const word = "x".repeat(500);
    const passages = passagesOf(segments([0, word], [1, word], [2, word], [3, word]));
    expect(passages.map((passage) => passage.starts)).toEqual([[0, 1, 2], [3]]);
  });

  it("drops empty segments and makes control characters, ts_headline's markers among them, spaces", () => {
    const [passage] = passagesOf(segments([0, "  "], [1, "a\u0002b\u0003c\u0000d"], [2, ""]));
    expect(passage).toEqual({ position: 0, text: "a b c d", starts: [1], offsets: [0] });
  });
});

describe("segmentsOfPassages", () => {
  it("gives back each segment's start and words, lasting until the next start, the last until the media ends", () => {
    const kept = passagesOf([
      { start: 0, duration: 2.31, text: "Microsoft's Surface Go" },
      { start: 2.31, duration: 2.95, text: "is  the\nsmallest 👍" },
      { start: 70, duration: 1, text: "a new minute" },
    ]);
    expect(kept).toHaveLength(2);
    expect(segmentsOfPassages(kept, 75)).toEqual([
      { start: 0, duration: 2.31, text: "Microsoft's Surface Go" },
      { start: 2.31, duration: 67.69, text: "is the smallest 👍" },
      { start: 70, duration: 5, text: "a new minute" },
    ]);
  });

  it("gives the last segment no duration when the media's length is unknown", () => {
    expect(segmentsOfPassages(passagesOf([{ start: 4, duration: 2, text: "only" }]), null)).toEqual([
      { start: 4, duration: 0, text: "only" },
    ]);
  });

  it("gives nothing for no passages", () => {
    expect(segmentsOfPassages([], 10)).toEqual([]);
  });
});

describe("linkAt", () => {
  it("sets YouTube's t parameter in whole seconds, replacing one already there", () => {
    expect(linkAt("https://www.youtube.com/watch?v=jNQXAC9IVRw", "youtube", 123.9)).toBe(
      "https://www.youtube.com/watch?v=jNQXAC9IVRw&t=123s",
    );
    expect(linkAt("https://www.youtube.com/watch?v=jNQXAC9IVRw&t=5s", "youtube", 7)).toBe(
      "https://www.youtube.com/watch?v=jNQXAC9IVRw&t=7s",
    );
  });

  it("gives other media a media fragment, replacing a fragment already there", () => {
    expect(linkAt("https://cdn.example.org/episode.mp3", "podcast", 61.2)).toBe(
      "https://cdn.example.org/episode.mp3#t=61",
    );
    expect(linkAt("https://cdn.example.org/talk.mp4#chapter-2", "file", 0)).toBe(
      "https://cdn.example.org/talk.mp4#t=0",
    );
  });

  it("opens a video platform's page at the moment the way that platform does, or plainly where it cannot", () => {
    expect(linkAt("https://vimeo.com/76979871", "vimeo", 42.7)).toBe("https://vimeo.com/76979871#t=42s");
    expect(linkAt("https://www.dailymotion.com/video/x8a0b1c", "dailymotion", 90)).toBe(
      "https://www.dailymotion.com/video/x8a0b1c?start=90",
    );
    expect(linkAt("https://www.twitch.tv/videos/2012345678", "twitch", 3600)).toBe(
      "https://www.twitch.tv/videos/2012345678?t=3600s",
    );
    expect(linkAt("https://www.tiktok.com/@scout2015/video/6718335390845095173", "tiktok", 5)).toBe(
      "https://www.tiktok.com/@scout2015/video/6718335390845095173",
    );
  });
});
