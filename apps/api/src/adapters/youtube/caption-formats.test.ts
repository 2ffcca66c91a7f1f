import { describe, expect, it } from "vitest";
import { CaptionFormatError, decodeEntities, detectCaptionFormat, parseCaptionBody } from "./caption-formats.ts";

describe("parseCaptionBody", () => {
  it("reads srv3: milliseconds to seconds, word spans joined, entities decoded, empty cues dropped", () => {
    const body = `<?xml version="1.0"?><timedtext format="3"><body>
      <p t="1500" d="2000"><s ac="0">it&#39;s</s><s t="300"> fine</s></p>
      <p t="3500" d="10">
      </p>
      <p t="500" d="1000">first &amp; &quot;earlier&quot;</p></body></timedtext>`;
    expect(detectCaptionFormat(body)).toBe("srv3");
    expect(parseCaptionBody(body)).toEqual([
      { start: 0.5, duration: 1, text: 'first & "earlier"' },
      { start: 1.5, duration: 2, text: "it's fine" },
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
