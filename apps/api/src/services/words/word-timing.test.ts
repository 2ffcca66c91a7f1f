import type { Schema } from "@verbatim/contract";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { transcriptWordBreaches, wordRuleBreaches } from "../../../test/support/word-rules.ts";
import { estimatedWords, fittedWords, presentedTranscript, timedSegments, wordsOf } from "./word-timing.ts";

type Segment = Schema<"Segment">;

/** A word as any source may write one: any characters but white space. */
const word = fc
  .string({ unit: "binary", minLength: 1, maxLength: 8 })
  .map((text) => text.replace(/\s/g, ""))
  .filter((text) => text !== "");
const blanks = fc.constantFrom(" ", "  ", "\t", "\n", "\u00a0", " \u2028 ");
const milliseconds = (max: number) => fc.integer({ min: 0, max });

/** A segment's times, to the millisecond as the service keeps them, and its words written with any white space. */
const segmentWords = fc.record({
  startMs: milliseconds(10_000_000),
  durationMs: milliseconds(60_000),
  words: fc.array(word, { maxLength: 12 }),
  gaps: fc.array(blanks, { minLength: 14, maxLength: 14 }),
});

function segmentOf({
  startMs,
  durationMs,
  words,
  gaps,
}: {
  startMs: number;
  durationMs: number;
  words: string[];
  gaps: string[];
}): Segment {
  const text = words.map((text, index) => `${index === 0 ? "" : gaps[index]}${text}`).join("");
  return { start: startMs / 1000, duration: durationMs / 1000, text: `${gaps[13] === " " ? " " : ""}${text}` };
}

/** Source word times of every kind: none, the segment's words at any times (outside it, out of order), or other words. */
const anySource = (segment: Segment) =>
  fc.oneof(
    fc.constant(undefined),
    fc
      .tuple(...wordsOf(segment.text).map(() => fc.tuple(fc.integer({ min: -5000, max: 70_000 }), milliseconds(5000))))
      .map((times) =>
        wordsOf(segment.text).map((text, index) => {
          const [offsetMs = 0, durationMs = 0] = times[index] ?? [];
          return { text, start: Math.max(0, segment.start + offsetMs / 1000), duration: durationMs / 1000 };
        }),
      ),
    fc.array(word, { maxLength: 4 }).map((texts) => texts.map((text) => ({ text, start: segment.start, duration: 0 }))),
  );

const segmentsWithSources = fc
  .array(segmentWords, { maxLength: 6 })
  .map((drawn) => drawn.map(segmentOf))
  .chain((segments) =>
    fc.tuple(...segments.map((segment) => anySource(segment))).map((sources) =>
      segments.map((segment, index) => {
        const words = sources[index];
        return words === undefined ? segment : { ...segment, words };
      }),
    ),
  );

describe("timedSegments: the rules every word time keeps", () => {
  it("gives every segment words that spell its text, in order, inside it, whatever its source gave", () => {
    fc.assert(
      fc.property(segmentsWithSources, (segments) => {
        expect(transcriptWordBreaches(timedSegments(segments).segments)).toEqual([]);
      }),
    );
  });

  it("keeps the source's times when they keep the rules, and then says `source`", () => {
    const kept = segmentWords.map(segmentOf).chain((segment) => {
      const texts = wordsOf(segment.text);
      const startMs = Math.round(segment.start * 1000);
      const endMs = Math.round((segment.start + segment.duration) * 1000);
      return fc
        .array(fc.integer({ min: startMs, max: endMs }), { minLength: texts.length * 2, maxLength: texts.length * 2 })
        .map((times) => {
          const sorted = [...times].sort((a, b) => a - b);
          const words = texts.map((text, index) => {
            const from = sorted[2 * index] ?? startMs;
            const to = sorted[2 * index + 1] ?? from;
            return { text, start: from / 1000, duration: (to - from) / 1000 };
          });
          return { ...segment, words };
        });
    });
    fc.assert(
      fc.property(kept, (segment) => {
        const timed = timedSegments([segment]);
        expect(timed.timing).toBe("source");
        expect(timed.segments[0]?.words).toEqual(segment.words);
      }),
    );
  });

  it("says `estimated` when a segment of several words had no times from its source", () => {
    const segments: Segment[] = [
      {
        start: 0,
        duration: 1,
        text: "timed words",
        words: [
          { text: "timed", start: 0, duration: 0.5 },
          { text: "words", start: 0.5, duration: 0.5 },
        ],
      },
      { start: 1, duration: 2, text: "untimed words here" },
    ];
    expect(timedSegments(segments).timing).toBe("estimated");
    expect(timedSegments(segments.slice(0, 1)).timing).toBe("source");
  });

  it("takes a segment of one word as timed by its source: its times are the word's", () => {
    const timed = timedSegments([{ start: 2.5, duration: 0.25, text: "father." }]);
    expect(timed).toEqual({
      segments: [
        { start: 2.5, duration: 0.25, text: "father.", words: [{ text: "father.", start: 2.5, duration: 0.25 }] },
      ],
      timing: "source",
    });
  });

  it("moves a time outside the segment to its nearer end, and one before the word before it to that word's start", () => {
    const segment: Segment = { start: 10, duration: 2, text: "early late back" };
    expect(
      fittedWords(segment, [
        { text: "early", start: 9.5, duration: 1 },
        { text: "late", start: 11.5, duration: 1 },
        { text: "back", start: 10.2, duration: 0.1 },
      ]),
    ).toEqual([
      { text: "early", start: 10, duration: 0.5 },
      { text: "late", start: 11.5, duration: 0.5 },
      { text: "back", start: 11.5, duration: 0 },
    ]);
  });

  it("refuses source words that spell another text", () => {
    const segment: Segment = { start: 0, duration: 1, text: "two words" };
    expect(fittedWords(segment, [{ text: "two", start: 0, duration: 1 }])).toBeNull();
    expect(
      fittedWords(segment, [
        { text: "two", start: 0, duration: 0.5 },
        { text: "birds", start: 0.5, duration: 0.5 },
      ]),
    ).toBeNull();
  });
});

describe("estimatedWords", () => {
  it("shares the segment's time out among its words by their characters, end to end", () => {
    expect(estimatedWords({ start: 1, duration: 1, text: "I am   your father." })).toEqual([
      { text: "I", start: 1, duration: 0.071 },
      { text: "am", start: 1.071, duration: 0.143 },
      { text: "your", start: 1.214, duration: 0.286 },
      { text: "father.", start: 1.5, duration: 0.5 },
    ]);
  });

  it("counts an emoji as one character, as readers do", () => {
    expect(estimatedWords({ start: 0, duration: 0.3, text: "👍 ok" })).toEqual([
      { text: "👍", start: 0, duration: 0.1 },
      { text: "ok", start: 0.1, duration: 0.2 },
    ]);
  });

  it("starts the first word with the segment and ends the last with it, each word where the one before ends", () => {
    fc.assert(
      fc.property(segmentWords.map(segmentOf), (segment) => {
        const words = estimatedWords(segment);
        expect(wordRuleBreaches({ ...segment, words })).toEqual([]);
        if (words.length === 0) return;
        const ms = (seconds: number) => Math.round(seconds * 1000);
        expect(ms(words[0]?.start ?? -1)).toBe(ms(segment.start));
        const last = words.at(-1);
        expect(ms((last?.start ?? 0) + (last?.duration ?? 0))).toBe(ms(segment.start + segment.duration));
        words.slice(1).forEach((next, index) => {
          const before = words[index];
          expect(ms(next.start)).toBe(ms((before?.start ?? 0) + (before?.duration ?? 0)));
        });
      }),
    );
  });
});

describe("presentedTranscript", () => {
  const transcript = {
    segments: [
      {
        start: 0,
        duration: 1,
        text: "hello world",
        words: [
          { text: "hello", start: 0, duration: 0.4 },
          { text: "world", start: 0.4, duration: 0.6 },
        ],
      },
    ],
  };

  it("drops every word time when words were not asked for", () => {
    expect(presentedTranscript(transcript, false)).toEqual({
      segments: [{ start: 0, duration: 1, text: "hello world" }],
    });
  });

  it("times every word and says where the times came from when they were", () => {
    expect(presentedTranscript(transcript, true)).toEqual({ ...transcript, word_timing: "source" });
  });
});
