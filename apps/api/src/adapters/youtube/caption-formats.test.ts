import { fixture } from "@verbatim/testkit/fake-youtube";
import { describe, expect, it } from "vitest";
import { CaptionFormatError, decodeEntities, detectCaptionFormat, parseCaptionBody } from "./caption-formats.ts";

describe("parseCaptionBody", () => {
  it("reads srv3: milliseconds to seconds, word spans joined and timed, entities decoded, empty cues dropped", () => {
    const body = `<?xml version="1.0"?><timedtext format="3"><body>
      <p t="1500" d="2000"><s ac="0">it&#39;s</s><s t="300"> fine</s></p>
      <p t="3500" d="10">
      </p>
      <p t="500" d="1000">first &amp; &quot;earlier&quot;</p></body></timedtext>`;
    expect(detectCaptionFormat(body)).toBe("srv3");
    expect(parseCaptionBody(body)).toEqual([
      { start: 0.5, duration: 1, text: 'first & "earlier"' },
      {
        start: 1.5,
        duration: 2,
        text: "it's fine",
        words: [
          { text: "it's", start: 1.5, duration: 0.3 },
          { text: "fine", start: 1.8, duration: 1.7 },
        ],
      },
    ]);
  });

  it("times no word of srv3 spans without offsets: a manual track's styling", () => {
    const body = `<timedtext format="3"><body><p t="0" d="900"><s p="1">big</s> <s p="2">small</s></p></body></timedtext>`;
    expect(parseCaptionBody(body)).toEqual([{ start: 0, duration: 0.9, text: "big small" }]);
  });

  it("times the words of srv3 automatic captions by their spans (the authored GJLlxj_dtq8 asr track)", () => {
    const body = fixture("authored/GJLlxj_dtq8.en-asr.srv3.xml");
    expect(parseCaptionBody(body)).toEqual([
      {
        start: 0.08,
        duration: 3.2,
        text: "so this is the surface go",
        words: [
          { text: "so", start: 0.08, duration: 0.24 },
          { text: "this", start: 0.32, duration: 0.24 },
          { text: "is", start: 0.56, duration: 0.24 },
          { text: "the", start: 0.8, duration: 0.24 },
          { text: "surface", start: 1.04, duration: 0.48 },
          { text: "go", start: 1.52, duration: 1.76 },
        ],
      },
      {
        start: 3.28,
        duration: 2.9,
        text: "it's awesome",
        words: [
          { text: "it's", start: 3.28, duration: 0.4 },
          { text: "awesome", start: 3.68, duration: 2.5 },
        ],
      },
    ]);
  });

  it("times the words of json3 automatic captions by tOffsetMs (the authored JFK asr track): 'country' at 5.66 s and 10.02 s", () => {
    const body = fixture("authored/jfk.en-asr.json3");
    const segments = parseCaptionBody(body);
    expect(segments.map((segment) => segment.text)).toEqual([
      "and so my fellow americans ask",
      "not what your country can do",
      "for you ask what you can",
      "do for your country",
    ]);
    expect(segments[0]?.words?.slice(0, 3)).toEqual([
      { text: "and", start: 0, duration: 0.42 },
      { text: "so", start: 0.42, duration: 0.22 },
      { text: "my", start: 0.64, duration: 0.21 },
    ]);
    const country = segments.flatMap((segment) => segment.words ?? []).filter((word) => word.text === "country");
    expect(country).toEqual([
      { text: "country", start: 5.66, duration: 0.58 },
      { text: "country", start: 10.02, duration: 0.98 },
    ]);
  });

  it("joins a json3 word that runs over segs, and leaves a cue without offsets untimed", () => {
    const body = JSON.stringify({
      events: [
        {
          tStartMs: 1000,
          dDurationMs: 2000,
          segs: [{ utf8: "東京" }, { utf8: "タワー", tOffsetMs: 500 }, { utf8: " です", tOffsetMs: 900 }],
        },
        { tStartMs: 4000, dDurationMs: 1000, segs: [{ utf8: "[Music]" }] },
      ],
    });
    expect(parseCaptionBody(body)).toEqual([
      {
        start: 1,
        duration: 2,
        text: "東京タワー です",
        words: [
          { text: "東京タワー", start: 1, duration: 0.9 },
          { text: "です", start: 1.9, duration: 1.1 },
        ],
      },
      { start: 4, duration: 1, text: "[Music]" },
    ]);
  });

  it("reads json3: window events and line-break events dropped", () => {
    const body = JSON.stringify({
      events: [
        { tStartMs: 0, dDurationMs: 9000 },
        { tStartMs: 200, dDurationMs: 1800, segs: [{ utf8: "hello" }, { utf8: "\nworld" }] },
        { tStartMs: 2000, dDurationMs: 10, segs: [{ utf8: "\n" }] },
      ],
    });
    expect(detectCaptionFormat(body)).toBe("json3");
    expect(parseCaptionBody(body)).toEqual([{ start: 0.2, duration: 1.8, text: "hello world" }]);
  });

  it("reads the legacy XML with markup escaped inside the text and double-escaped entities", () => {
    const body = `<transcript><text start="1.25" dur="2">a &lt;i>b&lt;/i> &amp;#39;c&amp;#39;</text><text start="4" dur="1"/></transcript>`;
    expect(detectCaptionFormat(body)).toBe("legacy-xml");
    expect(parseCaptionBody(body)).toEqual([{ start: 1.25, duration: 2, text: "a b 'c'" }]);
  });

  it("refuses a body in another format", () => {
    expect(() => parseCaptionBody("WEBVTT\n")).toThrow(CaptionFormatError);
    expect(() => parseCaptionBody("{not json")).toThrow(CaptionFormatError);
  });
});

describe("decodeEntities", () => {
  it("decodes named, decimal and hex entities and keeps unknown ones", () => {
    expect(decodeEntities("&lt;&#233;&#x1F600;&bogus;&amp;")).toBe("<é😀&bogus;&");
  });
});
