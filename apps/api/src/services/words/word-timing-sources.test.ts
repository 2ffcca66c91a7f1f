import type { Schema } from "@verbatim/contract";
import { toVtt } from "@verbatim/sdk";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { transcriptWordBreaches } from "../../../test/support/word-rules.ts";
import { utteranceSegment } from "../../adapters/asr/sherpa-onnx-speech-engine.ts";
import { parsePublisherTranscript } from "../../adapters/audio-sources/publisher-transcripts.ts";
import type { TimedWord } from "../../adapters/parsing/words.ts";
import { parseCaptionBody } from "../../adapters/youtube/caption-formats.ts";
import { ingestedText } from "./segment-text.ts";
import { fittedWords, ingestedWords, timedSegments } from "./word-timing.ts";

type Segment = Schema<"Segment">;

/**
 * The segments as the service keeps what a source gave: text and words as `ingestedText` keeps
 * text. Each segment whose source timed its words must spell its text with them (else its times
 * would be thrown away for an estimate), and every segment, timed by its source or not, must keep
 * the rules once timed.
 */
function expectKeptWordRules(
  parsed: ReadonlyArray<{ start: number; duration: number; text: string; words?: TimedWord[] }>,
) {
  const kept: Segment[] = parsed.map((segment) => ({
    start: segment.start,
    duration: segment.duration,
    text: ingestedText(segment.text),
    ...(segment.words ? { words: ingestedWords(segment.words) } : {}),
  }));
  for (const segment of kept) {
    if (segment.words) expect(fittedWords(segment, segment.words), JSON.stringify(segment)).not.toBeNull();
  }
  expect(transcriptWordBreaches(timedSegments(kept).segments)).toEqual([]);
}

/** Text as captions hold it: any characters, white space and line separators of every kind among them. */
const pieceText = fc.oneof(
  fc.string({ unit: "binary", maxLength: 12 }),
  fc.constantFrom(" ", " word", "word ", "\n", "a\u0085b", "日本語", " x\u2028y ", "tab\there"),
);
const offsetMs = fc.option(fc.integer({ min: -2_000, max: 15_000 }), { nil: undefined });

describe("the rules hold for the word times of every source", () => {
  it("YouTube json3 (segs[].tOffsetMs), offsets of any value on any text", () => {
    const events = fc.array(
      fc.record({
        tStartMs: fc.integer({ min: 0, max: 1_000_000 }),
        dDurationMs: fc.integer({ min: 0, max: 10_000 }),
        segs: fc.array(fc.tuple(pieceText, offsetMs), { maxLength: 8 }),
      }),
      { maxLength: 8 },
    );
    fc.assert(
      fc.property(events, (drawn) => {
        const body = JSON.stringify({
          events: drawn.map((event) => ({
            ...event,
            segs: event.segs.map(([utf8, tOffsetMs]) => (tOffsetMs === undefined ? { utf8 } : { utf8, tOffsetMs })),
          })),
        });
        expectKeptWordRules(parseCaptionBody(body));
      }),
    );
  });

  it("YouTube srv3 (<s t>), spans with offsets, without, and text between them", () => {
    const markup = fc.constantFrom(
      "plain words",
      "it&#39;s",
      "a &amp; b",
      " &lt;tag&gt; ",
      '<font color="#fff">big</font> one',
      "x\ny",
      "",
    );
    const paragraphs = fc.array(
      fc.record({
        t: fc.integer({ min: 0, max: 1_000_000 }),
        d: fc.integer({ min: 0, max: 10_000 }),
        spans: fc.array(fc.tuple(markup, fc.oneof(offsetMs, fc.constant(null))), { maxLength: 6 }),
      }),
      { maxLength: 6 },
    );
    fc.assert(
      fc.property(paragraphs, (drawn) => {
        const body = `<timedtext format="3"><body>${drawn
          .map(
            ({ t, d, spans }) =>
              `<p t="${t}" d="${d}">${spans
                .map(([text, offset]) =>
                  offset === null
                    ? text
                    : offset === undefined
                      ? `<s ac="0">${text}</s>`
                      : `<s t="${offset}" ac="0">${text}</s>`,
                )
                .join("")}</p>`,
          )
          .join("\n")}</body></timedtext>`;
        expectKeptWordRules(parseCaptionBody(body));
      }),
    );
  });

  it("WebVTT cue timestamps, before any word, inside or outside their cue", () => {
    const cueWords = fc.array(
      fc.tuple(
        fc.constantFrom("And", "so,", "<i>my</i>", "&amp;", "fellow", "Amé­ricains", "😀", "<c> you,</c>", "  ", "\t"),
        fc.option(fc.integer({ min: 0, max: 30_000 }), { nil: undefined }),
      ),
      { maxLength: 8 },
    );
    const cues = fc.array(
      fc.record({
        startMs: fc.integer({ min: 0, max: 20_000 }),
        durationMs: fc.integer({ min: 0, max: 8_000 }),
        words: cueWords,
      }),
      { maxLength: 6 },
    );
    fc.assert(
      fc.property(cues, (drawn) => {
        const body = drawn
          .map(({ startMs, durationMs, words }) => {
            const text = words.map(([word, at]) => `${at === undefined ? "" : `<${clock(at)}>`}${word}`).join(" ");
            return `${clock(startMs)} --> ${clock(startMs + durationMs)}\nx ${text}`;
          })
          .join("\n\n");
        const parsed = parsePublisherTranscript(`WEBVTT\n\n${body}\n`, {
          declaredFormat: "vtt",
          durationSeconds: null,
        });
        if ("failure" in parsed) return;
        expectKeptWordRules(parsed.segments);
      }),
    );
  });

  it("speech recognition: a recognizer's tokens at any times, the lag taken off", () => {
    const tokens = fc.array(
      fc.tuple(
        fc.constantFrom("▁THE", "▁COUN", "TRY", "▁", "'S", "▁A", "ND", " YOU", "▁▁SO"),
        fc.double({ min: 0, max: 20, noNaN: true }),
      ),
      { maxLength: 12 },
    );
    const utterance = fc.record({
      tokens,
      startTime: fc.double({ min: 0, max: 100, noNaN: true }),
      endAfter: fc.double({ min: 0, max: 30, noNaN: true }),
    });
    fc.assert(
      fc.property(utterance, ({ tokens: drawn, startTime, endAfter }) => {
        const result = {
          tokens: drawn.map(([token]) => token),
          timestamps: drawn.map(([, at]) => at),
          start_time: startTime,
        };
        const segment = utteranceSegment(result, startTime + endAfter, 0.32);
        if (segment) expectKeptWordRules([segment]);
      }),
    );
  });
});

describe("WebVTT written with words reads back with them", () => {
  it("gives each word the start its cue timestamp says", () => {
    const segments = fc
      .array(
        fc.record({
          startMs: fc.integer({ min: 0, max: 1_000_000 }),
          durationMs: fc.integer({ min: 1, max: 10_000 }),
          words: fc.array(fc.constantFrom("ask", "not", "what", "your", "<country>", "&", "can"), {
            minLength: 1,
            maxLength: 6,
          }),
          offsets: fc.array(fc.double({ min: 0, max: 0.999, noNaN: true }), { minLength: 6, maxLength: 6 }),
        }),
        { maxLength: 5 },
      )
      .map((drawn) =>
        drawn.map(({ startMs, durationMs, words, offsets }) => {
          const times = offsets.slice(0, words.length).map((share) => startMs + Math.floor(share * durationMs));
          times.sort((a, b) => a - b);
          return {
            start: startMs / 1000,
            duration: durationMs / 1000,
            text: words.join(" "),
            words: words.map((text, index) => ({ text, start: (times[index] ?? startMs) / 1000, duration: 0 })),
          };
        }),
      );
    fc.assert(
      fc.property(segments, (written) => {
        const parsed = parsePublisherTranscript(toVtt(written), { declaredFormat: "vtt", durationSeconds: null });
        if ("failure" in parsed) {
          expect(written).toEqual([]);
          return;
        }
        // A cue whose words all start with it has no timestamp to read back: it times no word.
        const expected = [...written]
          .sort((a, b) => a.start - b.start)
          .map((segment) =>
            segment.words.some((word) => word.start > segment.start)
              ? segment.words.map((word) => word.start)
              : undefined,
          );
        expect(parsed.segments.map((segment) => segment.words?.map((word) => word.start))).toEqual(expected);
      }),
    );
  });
});

/** `HH:MM:SS.mmm`, as WebVTT writes cue times and timestamps. */
function clock(totalMs: number): string {
  const pad = (value: number, width: number) => String(value).padStart(width, "0");
  return `${pad(Math.floor(totalMs / 3_600_000), 2)}:${pad(Math.floor(totalMs / 60_000) % 60, 2)}:${pad(Math.floor(totalMs / 1000) % 60, 2)}.${pad(totalMs % 1000, 3)}`;
}
