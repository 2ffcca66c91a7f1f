import { readFileSync } from "node:fs";
import { podcastFixture } from "@verbatim/testkit/fake-podcast-host";
import { describe, expect, it } from "vitest";
import {
  type ParsedTranscript,
  parsePublisherTranscript,
  type TranscriptReading,
} from "../../src/adapters/audio-sources/publisher-transcripts.ts";
import { decodeText } from "../../src/adapters/audio-sources/text-decoding.ts";

const unknownLength: TranscriptReading = { declaredFormat: null, durationSeconds: null };

function parsed(fixture: string, reading: TranscriptReading = unknownLength): ParsedTranscript {
  const result = parsePublisherTranscript(decodeText(readFileSync(podcastFixture(fixture)), null), reading);
  if ("failure" in result) throw new Error(`${fixture}: ${result.failure}`);
  return result;
}

function expectMonotonic(transcript: ParsedTranscript): void {
  const starts = transcript.segments.map((segment) => segment.start);
  expect(starts).toEqual([...starts].sort((a, b) => a - b));
  expect(transcript.segments.every((segment) => segment.duration >= 0 && segment.text.length > 0)).toBe(true);
}

describe("parsePublisherTranscript", () => {
  it("reads the namespace's SRT: 222 cues, speakers from 'Name:' prefixes, carried to the cues that follow", () => {
    const transcript = parsed("podcast-namespace/example.srt");
    expect(transcript.format).toBe("srt");
    expect(transcript.speakers).toEqual(["Travis", "Sarah", "Gilon"]);
    expect(transcript.segments).toHaveLength(222);
    expect(transcript.segments[0]).toEqual({
      start: 0.179,
      duration: 2.22,
      text: "When you first get started in podcasting, it's",
      speaker: 0,
    });
    expect(transcript.segments[1]).toMatchObject({
      text: "almost guaranteed that you're going to make a handful of rookie",
      speaker: 0,
    });
    expect(transcript.segments.at(-1)).toEqual({
      start: 752.671,
      duration: 2.098,
      text: "best thing to do is to batch your episodes.",
      speaker: 0,
    });
    expect(transcript.segments.find((segment) => segment.text.startsWith("Creating good audio is"))?.speaker).toBe(1);
    expectMonotonic(transcript);
  });

  it("reads the namespace's WebVTT: <v> voices, &amp; decoded", () => {
    const transcript = parsed("podcast-namespace/example.vtt");
    expect(transcript.format).toBe("vtt");
    expect(transcript.speakers).toEqual(["Sarah", "Gillian"]);
    expect(transcript.segments).toHaveLength(7);
    expect(transcript.segments[0]).toEqual({
      start: 0,
      duration: 2.76,
      text: "In today's episode, you'll learn whether or not you",
      speaker: 0,
    });
    expect(transcript.segments[2]?.text).toBe("include in one? Welcome to Podcasting Q&A, where you learn");
    expect(transcript.segments.at(-1)).toEqual({
      start: 21.45,
      duration: 3.9,
      text: "careers podcast. My question is, do we need a podcast trailer?",
      speaker: 1,
    });
    expectMonotonic(transcript);
  });

  it("reads the namespace's JSON: one segment per entry, speakers by first appearance", () => {
    const transcript = parsed("podcast-namespace/example.json");
    expect(transcript.format).toBe("json");
    expect(transcript.speakers).toEqual(["Darth Vader", "Luke"]);
    expect(transcript.segments.map((segment) => segment.text)).toEqual(["I", "am", "your", "father.", "Nooooo"]);
    expect(transcript.segments[0]).toEqual({ start: 0.5, duration: 0.25, text: "I", speaker: 0 });
    expect(transcript.segments.at(-1)).toEqual({ start: 2.75, duration: 0.25, text: "Nooooo", speaker: 1 });
  });

  it("reads the namespace's HTML: <cite> speakers, <time> starts, paragraphs ending where the next begins", () => {
    const transcript = parsed("podcast-namespace/example.html", { declaredFormat: "html", durationSeconds: 755 });
    expect(transcript.format).toBe("html");
    expect(transcript.speakers).toEqual(["Travis", "Sarah", "Gilon"]);
    expect(transcript.segments).toHaveLength(10);
    expect(transcript.segments[0]).toMatchObject({ start: 0, duration: 53, speaker: 0 });
    expect(transcript.segments[0]?.text).toMatch(/^When you first get started in podcasting, it's almost guaranteed/);
    expect(transcript.segments[1]).toMatchObject({ start: 53, speaker: 1 });
    // The last paragraph runs to the episode's end.
    expect(transcript.segments.at(-1)).toMatchObject({ start: 691, duration: 64, speaker: 0 });
    expect(transcript.segments.at(-1)?.text).toMatch(/the next best thing to do is to batch your episodes\.$/);
    expectMonotonic(transcript);
  });

  it("reads plain text as one untimed segment spanning the declared duration", () => {
    const result = parsePublisherTranscript("Hello there.\n\nThis is   the whole show.\n", {
      declaredFormat: "text",
      durationSeconds: 1800,
    });
    expect(result).toEqual({
      format: "text",
      segments: [{ start: 0, duration: 1800, text: "Hello there. This is the whole show." }],
      speakers: null,
    });
  });

  it("trusts the content over the declared type: VTT served as application/srt", () => {
    const text = readFileSync(podcastFixture("podcast-namespace/example.vtt"), "utf8");
    const result = parsePublisherTranscript(text, { declaredFormat: "srt", durationSeconds: null });
    expect(result).toMatchObject({ format: "vtt", speakers: ["Sarah", "Gillian"] });
  });

  it("decodes UTF-16 SRT by its byte-order mark", () => {
    const transcript = parsed("mantas-done-subtitles/utf16.srt");
    expect(transcript.segments).toEqual([{ start: 0, duration: 1, text: "ترجمه و تنظيم زيرنويس" }]);
  });

  it("skips WebVTT STYLE and NOTE blocks and cue identifiers", () => {
    expect(parsed("mantas-done-subtitles/vtt_with_styles.vtt").segments).toEqual([
      { start: 0, duration: 10, text: "Hello world." },
    ]);
  });

  it("drops empty cues", () => {
    expect(parsed("mantas-done-subtitles/vtt_with_missing_text.vtt").segments.map((segment) => segment.text)).toEqual([
      "one",
      "three",
    ]);
  });

  it("decodes WebVTT entities and reads a closed voice span", () => {
    expect(parsed("vtt-js/together.vtt").segments[0]?.text).toBe(
      "Some text < &> < &nb &am< \u200f&lr\u200e other stuff.",
    );
    expect(parsed("vtt-js/with-annotation.vtt")).toMatchObject({
      speakers: ["Mary"],
      segments: [{ start: 0, duration: 2, text: "No way!", speaker: 0 }],
    });
  });

  it("fails, saying why, for JSON segments without text (the namespace's first, word-timing-only draft)", () => {
    const text = readFileSync(podcastFixture("podcast-namespace/history-f455271/example.json"), "utf8");
    expect(parsePublisherTranscript(text, unknownLength)).toEqual({ failure: "the json transcript holds no text" });
  });

  it("fails, saying why, for JSON that does not parse and SRT with a broken timestamp", () => {
    expect(parsePublisherTranscript('{"segments": [', unknownLength)).toMatchObject({
      failure: expect.stringMatching(/^the JSON transcript does not parse/),
    });
    expect(
      parsePublisherTranscript("1\n00:00:01,000 --> soon\nHello\n", { declaredFormat: "srt", durationSeconds: null }),
    ).toMatchObject({
      failure: expect.stringMatching(/^the srt transcript does not parse/),
    });
  });
});

describe("parsePublisherTranscript: word times from WebVTT cue timestamps", () => {
  it("times each word of a karaoke WebVTT by the cue timestamp before it, through voice, <i> and <c> spans", () => {
    const transcript = parsed("verbatim/jfk-karaoke.vtt");
    expect(transcript.speakers).toEqual(["John F. Kennedy"]);
    expect(transcript.segments.map((segment) => segment.text)).toEqual([
      "And so, my fellow Americans: ask",
      "not what your country can do",
      "for you, ask what you can",
      "do for your country.",
      "(applause & cheers)",
    ]);
    expect(transcript.segments[0]?.words).toEqual([
      { text: "And", start: 0, duration: 0.42 },
      { text: "so,", start: 0.42, duration: 0.22 },
      { text: "my", start: 0.64, duration: 0.21 },
      { text: "fellow", start: 0.85, duration: 0.74 },
      { text: "Americans:", start: 1.59, duration: 1.71 },
      { text: "ask", start: 3.3, duration: 0.84 },
    ]);
    expect(transcript.segments[2]?.words).toEqual([
      { text: "for", start: 6.84, duration: 0.33 },
      { text: "you,", start: 7.17, duration: 0.77 },
      { text: "ask", start: 7.94, duration: 0.49 },
      { text: "what", start: 8.43, duration: 0.31 },
      { text: "you", start: 8.74, duration: 0.35 },
      { text: "can", start: 9.09, duration: 0 },
    ]);
    const country = transcript.segments
      .flatMap((segment) => segment.words ?? [])
      .filter((word) => /^country/.test(word.text));
    expect(country.map((word) => word.start)).toEqual([5.66, 10.02]);
    expect(transcript.segments[4]).toEqual({ start: 11, duration: 1.5, text: "(applause & cheers)" });
  });

  it("reads vtt.js's cue timestamp cases: one, two, one past the cue's end, and a broken one that times nothing", () => {
    expect(parsed("vtt-js/timestamp/basic.vtt").segments).toEqual([
      {
        start: 0,
        duration: 2,
        text: "It's a blue apple tree!",
        words: [
          { text: "It's", start: 1, duration: 0 },
          { text: "a", start: 1, duration: 0 },
          { text: "blue", start: 1, duration: 0 },
          { text: "apple", start: 1, duration: 0 },
          { text: "tree!", start: 1, duration: 1 },
        ],
      },
    ]);
    expect(parsed("vtt-js/timestamp/nested.vtt").segments[0]?.words).toEqual([
      { text: "Hee!", start: 1, duration: 0.5 },
      { text: "Hee!", start: 1.5, duration: 0.5 },
    ]);
    expect(parsed("vtt-js/timestamp/out-of-cue-range.vtt").segments[0]?.words).toEqual([
      { text: "That's", start: 3, duration: 0 },
      { text: "awesome!", start: 3, duration: 0 },
    ]);
    expect(parsed("vtt-js/timestamp/no-end-gt.vtt").segments).toEqual([
      { start: 0, duration: 2, text: "<00:01.000 It's a blue apple tree!" },
    ]);
  });

  it("times no word of SubRip, which has no cue timestamps", () => {
    expect(parsed("podcast-namespace/example.srt").segments.some((segment) => segment.words !== undefined)).toBe(false);
  });
});
