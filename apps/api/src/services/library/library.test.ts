import { describe, expect, it } from "vitest";
import type { AudioSources } from "../../adapters/audio-sources/audio-source.ts";
import type { IsolatedParser } from "../../adapters/parsing/isolated-parser.ts";
import type { CaptionSource } from "../../adapters/youtube/index.ts";
import { createSourceRegistry } from "../../sources/index.ts";
import { SourceRegistry } from "../../sources/registry.ts";
import type { EgressCalls } from "../../sources/ytdlp/guarded-call.ts";
import { YtdlpSource } from "../../sources/ytdlp/ytdlp-source.ts";
import { passagesOf, segmentsOfPassages } from "../kept/library-passages.ts";

/** The registry's members as a server has them: their links to a moment need none of their upstreams. */
const unused = {} as never;
const sources = createSourceRegistry({
  youtube: { captions: unused as CaptionSource },
  platforms: new SourceRegistry([
    new YtdlpSource({
      engine: null,
      absentAdvice: "",
      egress: unused as EgressCalls,
      parser: unused as IsolatedParser,
      allowedExtractors: [],
      downloadMaxBytes: 0,
      downloadTimeoutMs: 0,
    }),
  ]),
  web: unused as AudioSources,
});

/** The link a library snippet gives to a moment of an item of `platform`. */
function linkAt(url: string, platform: string, seconds: number): string {
  return sources.linkAt(url, platform, seconds);
}

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
      wordStarts: null,
      wordDurations: null,
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
    expect(passage).toEqual({
      position: 0,
      text: "a b c d",
      starts: [1],
      offsets: [0],
      wordStarts: null,
      wordDurations: null,
    });
  });

  it("keeps the times of the passage's words when the source timed them all, a segment of one word by its own times", () => {
    const [passage] = passagesOf([
      {
        start: 0,
        duration: 1,
        text: "ask not",
        words: [
          { text: "ask", start: 0.1, duration: 0.3 },
          { text: "not", start: 0.5, duration: 0.4 },
        ],
      },
      { start: 1, duration: 0.5, text: "country" },
    ]);
    expect(passage).toMatchObject({
      text: "ask not country",
      wordStarts: [0.1, 0.5, 1],
      wordDurations: [0.3, 0.4, 0.5],
    });
  });

  it("keeps no word times for a passage with one segment of several words its source did not time", () => {
    const [passage] = passagesOf([
      { start: 0, duration: 1, text: "ask", words: [{ text: "ask", start: 0.1, duration: 0.3 }] },
      { start: 1, duration: 1, text: "not what" },
    ]);
    expect(passage).toMatchObject({ wordStarts: null, wordDurations: null });
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
    expect(segmentsOfPassages(passagesOf([{ start: 4, duration: 2, text: "only two" }]), null)).toEqual([
      { start: 4, duration: 0, text: "only two" },
    ]);
  });

  it("gives back the times of the words, segment by segment, where the passage kept them", () => {
    const words = (starts: number[], texts: string[]) =>
      texts.map((text, index) => ({ text, start: starts[index] ?? 0, duration: 0.2 }));
    const kept = passagesOf([
      { start: 0, duration: 1, text: "ask  not", words: words([0, 0.5], ["ask", "not"]) },
      { start: 1, duration: 1, text: "what your country", words: words([1, 1.3, 1.6], ["what", "your", "country"]) },
    ]);
    expect(segmentsOfPassages(kept, 2)).toEqual([
      { start: 0, duration: 1, text: "ask not", words: words([0, 0.5], ["ask", "not"]) },
      { start: 1, duration: 1, text: "what your country", words: words([1, 1.3, 1.6], ["what", "your", "country"]) },
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
