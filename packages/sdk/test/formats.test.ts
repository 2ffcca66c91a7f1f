import subtitles from "@verbatim/contract/conformance/subtitles.json" with { type: "json" };
import { type NodeCue, parseSync } from "subtitle";
import { describe, expect, it } from "vitest";
import { type Segment, toSrt, toText, toVtt } from "../src/index.ts";

// Segments shaped like a real transcript: fractional times, an hour mark, a line break inside a
// segment, and text that looks like cue syntax.
const segments: Segment[] = [
  { start: 0, duration: 2.5, text: "All right, so here we are" },
  { start: 2.5, duration: 3.021, text: "in front of the\nelephants" },
  { start: 61.04, duration: 1.96, text: "the cool thing --> about these guys" },
  { start: 3725.5, duration: 4, text: "is that they have really, really long trunks", speaker: 0 },
];

function cues(text: string) {
  return parseSync(text)
    .filter((node): node is NodeCue => node.type === "cue")
    .map(({ data }) => ({ start: data.start, end: data.end, text: data.text }));
}

function expectedCues() {
  return segments.map((segment) => ({
    start: Math.round(segment.start * 1000),
    end: Math.round((segment.start + segment.duration) * 1000),
    text: segment.text.replace(/\s+/g, " "),
  }));
}

describe("the subtitles every writer gives", () => {
  it("are the server's: the contract's conformance file, byte for byte", () => {
    expect(toSrt(subtitles.segments)).toBe(subtitles.srt);
    expect(toVtt(subtitles.segments)).toBe(subtitles.vtt);
  });

  it("time each word of segments that carry words, in WebVTT only: the conformance file's words, byte for byte", () => {
    expect(toSrt(subtitles.words.segments)).toBe(subtitles.words.srt);
    expect(toVtt(subtitles.words.segments)).toBe(subtitles.words.vtt);
  });
});

describe("toSrt", () => {
  it("writes cues that a SubRip parser reads back with the same times and texts, > written &gt;", () => {
    const expected = expectedCues().map((cue) => ({ ...cue, text: cue.text.replace("-->", "--&gt;") }));
    expect(cues(toSrt(segments))).toEqual(expected);
  });

  it("numbers cues from 1 and writes hours, minutes, seconds and milliseconds", () => {
    const srt = toSrt(segments);
    expect(srt.startsWith("1\n00:00:00,000 --> 00:00:02,500\nAll right, so here we are\n")).toBe(true);
    expect(srt).toContain("4\n01:02:05,500 --> 01:02:09,500\n");
  });

  it("writes a segment's lines as one, so a blank line in its text cannot end the cue", () => {
    const parsed = cues(toSrt([{ start: 1, duration: 1, text: "first\n\nsecond" }]));
    expect(parsed).toEqual([{ start: 1000, end: 2000, text: "first second" }]);
  });

  it("writes markup as text, so a reader finds no tag in it", () => {
    expect(toSrt([{ start: 0, duration: 1, text: "<script>alert(1)</script> & <i>x</i>" }])).toBe(
      "1\n00:00:00,000 --> 00:00:01,000\n&lt;script&gt;alert(1)&lt;/script&gt; & &lt;i&gt;x&lt;/i&gt;\n\n",
    );
  });

  it("removes control characters and writes every line separator as a space, so no text starts a cue", () => {
    const text =
      "a\u0085b\u001cc\u2028d\u2029e\vf\fg\rh\u0000i\u009bj\u001b[2Jk\u001b]0;t\u0007l\n\n2\n00:00:00,000 --> 00:00:09,000\nm";
    expect(toSrt([{ start: 0, duration: 1, text }])).toBe(
      "1\n00:00:00,000 --> 00:00:01,000\na b c d e f g hij[2Jk]0;tl 2 00:00:00,000 --&gt; 00:00:09,000 m\n\n",
    );
  });
});

describe("toVtt", () => {
  it("writes a WEBVTT file that a parser reads back with the same times and texts", () => {
    const vtt = toVtt(segments);
    expect(vtt.startsWith("WEBVTT\n\n00:00:00.000 --> 00:00:02.500\n")).toBe(true);
    const expected = expectedCues().map((cue) => ({ ...cue, text: cue.text.replace("-->", "--&gt;") }));
    expect(cues(vtt)).toEqual(expected);
  });
});

describe("toText", () => {
  it("joins the segments with spaces", () => {
    expect(toText(segments)).toBe(
      "All right, so here we are in front of the elephants the cool thing --> about these guys is that they have really, really long trunks",
    );
  });

  it("prefixes each segment with its start with `timestamps`", () => {
    expect(toText(segments, { timestamps: true }).split("\n")).toEqual([
      "[00:00] All right, so here we are",
      "[00:02] in front of the elephants",
      "[01:01] the cool thing --> about these guys",
      "[1:02:05] is that they have really, really long trunks",
    ]);
  });
});
