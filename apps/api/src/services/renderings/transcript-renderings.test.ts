import subtitles from "@verbatim/contract/conformance/subtitles.json" with { type: "json" };
import { toSrt, toVtt } from "@verbatim/sdk";
import fc from "fast-check";
import { type NodeCue, parseSync } from "subtitle";
import { describe, expect, it } from "vitest";
import {
  type Chapter,
  characterCount,
  chunksByChapter,
  chunksOf,
  renderTranscript,
  type Segment,
  textOf,
} from "./transcript-renderings.ts";

const surfaceGo: Segment[] = [
  { start: 0, duration: 2.31, text: "Microsoft's Surface Go is the smallest" },
  { start: 2.31, duration: 2.95, text: "and cheapest Surface & it's really good." },
  { start: 5.26, duration: 3.12, text: 'The "Type Cover" is sold separately.' },
];

/** The cues a real parser reads from a subtitle document, times in milliseconds. */
function cuesIn(document: string): NodeCue["data"][] {
  return parseSync(document).flatMap((node) => (node.type === "cue" ? [node.data] : []));
}

/** WebVTT's character references, which the `subtitle` package leaves as written. */
function decodeVttText(text: string): string {
  return text.replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&amp;", "&");
}

/** The references SubRip text is written with, which the `subtitle` package leaves as written. */
function decodeSrtText(text: string): string {
  return text.replaceAll("&lt;", "<").replaceAll("&gt;", ">");
}

/**
 * The cues a segment list should become: text on one line (controls removed, blanks and line
 * separators one space, as the conformance file says), times to the millisecond, wordless segments left out.
 */
function expectedCues(segments: readonly Segment[]) {
  return segments
    .map((segment) => ({
      start: Math.round(segment.start * 1000),
      end: Math.round((segment.start + segment.duration) * 1000),
      text: segment.text
        // biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters a writer removes.
        .replace(/[^\P{Cc}\s\x1c-\x1e\x85]/gu, "")
        // biome-ignore lint/suspicious/noControlCharactersInRegex: the line separators a writer folds.
        .replace(/[\s\x1c-\x1e\x85]+/g, " ")
        .trim(),
    }))
    .filter((cue) => cue.text !== "");
}

/** Segments as sources give them: in time order, not overlapping, millisecond times, text of any script. */
const segmentLists = fc
  .array(
    fc.record({
      gap: fc.integer({ min: 0, max: 5_000 }),
      durationMs: fc.integer({ min: 0, max: 20_000 }),
      text: fc.oneof(
        fc.string({ unit: "grapheme", maxLength: 80 }),
        fc
          .array(fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 12 }), { maxLength: 40 })
          .map((words) => words.join(" ")),
        fc.constantFrom(
          "ça va -> oui",
          "a --> b",
          "<i>x</i> & y",
          "日本語のテキスト",
          "emoji 👍🏽 here",
          "line\nbreak",
        ),
      ),
    }),
    { minLength: 1, maxLength: 60 },
  )
  .map((pieces) => {
    let clockMs = 0;
    return pieces.map(({ gap, durationMs, text }) => {
      const start = clockMs + gap;
      clockMs = start + durationMs;
      return { start: start / 1000, duration: durationMs / 1000, text };
    });
  });

describe("the SubRip the server writes (the Node SDK's toSrt)", () => {
  it("writes numbered cues with comma milliseconds, each ended by a blank line", () => {
    expect(toSrt(surfaceGo)).toBe(
      "1\n00:00:00,000 --> 00:00:02,310\nMicrosoft's Surface Go is the smallest\n\n" +
        "2\n00:00:02,310 --> 00:00:05,260\nand cheapest Surface & it's really good.\n\n" +
        '3\n00:00:05,260 --> 00:00:08,380\nThe "Type Cover" is sold separately.\n\n',
    );
  });

  it("writes hours past 99 and rounds to the millisecond", () => {
    expect(toSrt([{ start: 360_000.0004, duration: 1.2346, text: "late" }])).toBe(
      "1\n100:00:00,000 --> 100:00:01,235\nlate\n\n",
    );
  });

  it("is parsed back by the subtitle package into the same cues, for any segments", () => {
    fc.assert(
      fc.property(segmentLists, (segments) => {
        const cues = cuesIn(toSrt(segments)).map((cue) => ({ ...cue, text: decodeSrtText(cue.text) }));
        expect(cues).toEqual(expectedCues(segments));
      }),
    );
  });
});

describe("the WebVTT the server writes (the Node SDK's toVtt)", () => {
  it("writes the WEBVTT header and cues with dot milliseconds, escaping markup", () => {
    expect(toVtt(surfaceGo.slice(1, 2))).toBe(
      "WEBVTT\n\n00:00:02.310 --> 00:00:05.260\nand cheapest Surface &amp; it's really good.\n\n",
    );
  });

  it("never writes --> inside a cue's text", () => {
    const document = toVtt([{ start: 0, duration: 1, text: "a --> b <c>" }]);
    expect(document.split("\n").filter((line) => line.includes("-->"))).toEqual(["00:00:00.000 --> 00:00:01.000"]);
    expect(document).toContain("a --&gt; b &lt;c&gt;");
  });

  it("collapses a segment's line breaks, and leaves out a segment without words", () => {
    const document = toVtt([
      { start: 0, duration: 1, text: "one\ntwo  three" },
      { start: 1, duration: 1, text: " \n " },
      { start: 2, duration: 1, text: "four" },
    ]);
    expect(document).toBe(
      "WEBVTT\n\n00:00:00.000 --> 00:00:01.000\none two three\n\n00:00:02.000 --> 00:00:03.000\nfour\n\n",
    );
  });

  it("is parsed back by the subtitle package into the same cues, for any segments", () => {
    fc.assert(
      fc.property(segmentLists, (segments) => {
        const cues = cuesIn(toVtt(segments)).map((cue) => ({ ...cue, text: decodeVttText(cue.text) }));
        expect(cues).toEqual(expectedCues(segments));
      }),
    );
  });
});

describe("the subtitles of hostile text", () => {
  /** The lines Python's `str.splitlines()` finds: a reader that splits there is the strictest. */
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the line separators of str.splitlines().
  const splitLines = (document: string) => document.split(/\r\n|[\n\v\f\r\x1c-\x1e\x85\u2028\u2029]/);
  const hostileTexts = fc.oneof(
    fc.string({ unit: "binary", maxLength: 40 }),
    fc
      .array(
        fc.constantFrom(
          "<script>",
          "</b>",
          "-->",
          "\n\n2\n00:00:00,000 --> 00:00:09,000\n",
          "\u0085",
          "\u001c",
          "\u2028",
          "\u2029",
          "\v",
          "\f",
          "\r",
          "\u0000",
          "\u009b",
          "\u001b]52;c;aGk=\u0007",
          "\u001b[2J",
          "word",
          " ",
        ),
        { maxLength: 12 },
      )
      .map((pieces) => pieces.join("")),
  );
  const hostileSegments = fc.array(
    fc.record({ start: fc.nat(100_000), duration: fc.nat(10_000), text: hostileTexts }),
    { maxLength: 20 },
  );

  it("is SubRip of four lines a cue, whose text opens no tag and holds no control character", () => {
    fc.assert(
      fc.property(hostileSegments, (segments) => {
        const document = toSrt(segments);
        const lines = splitLines(document);
        const cueCount = expectedCues(segments).length;
        expect(lines).toHaveLength(4 * cueCount + 1);
        for (let cue = 0; cue < cueCount; cue++) {
          expect(lines[4 * cue]).toBe(String(cue + 1));
          expect(lines[4 * cue + 1]).toMatch(/^\d{2,}:\d{2}:\d{2},\d{3} --> \d{2,}:\d{2}:\d{2},\d{3}$/);
          expect(lines[4 * cue + 2]).toMatch(/^[^<>]+$/);
          expect(lines[4 * cue + 3]).toBe("");
        }
        expect(document).not.toMatch(/[^\P{Cc}\n]/u);
      }),
    );
  });

  it("is WebVTT of three lines a cue, whose text opens no tag and holds no control character", () => {
    fc.assert(
      fc.property(hostileSegments, (segments) => {
        const document = toVtt(segments);
        const lines = splitLines(document);
        const cueCount = expectedCues(segments).length;
        expect(lines.slice(0, 2)).toEqual(["WEBVTT", ""]);
        const cueLines = lines.slice(2);
        expect(cueLines).toHaveLength(cueCount === 0 ? 0 : 3 * cueCount + 1);
        for (let cue = 0; cue < cueCount; cue++) {
          expect(cueLines[3 * cue]).toMatch(/^\d{2,}:\d{2}:\d{2}\.\d{3} --> \d{2,}:\d{2}:\d{2}\.\d{3}$/);
          expect(cueLines[3 * cue + 1]).toMatch(/^[^<>]+$/);
          expect(cueLines[3 * cue + 2]).toBe("");
        }
        expect(document).not.toMatch(/[^\P{Cc}\n]/u);
      }),
    );
  });
});

describe("chunksOf", () => {
  it("joins whole segments while they fit, from the first one's start to the last one's end", () => {
    expect(chunksOf(surfaceGo, 100)).toEqual([
      {
        text: "Microsoft's Surface Go is the smallest and cheapest Surface & it's really good.",
        start: 0,
        end: 5.26,
      },
      { text: 'The "Type Cover" is sold separately.', start: 5.26, end: 8.38 },
    ]);
  });

  it("cuts a segment longer than the size at spaces, sharing its time out by characters", () => {
    const words = Array.from({ length: 30 }, (_, index) => `word${String(index).padStart(2, "0")}`);
    // 30 words of 6 characters and 29 spaces: 209 characters over 20.9 s, 0.1 s a character.
    const long: Segment = { start: 10, duration: 20.9, text: words.join(" ") };
    const chunks = chunksOf(
      [{ start: 0, duration: 10, text: "before" }, long, { start: 31, duration: 1, text: "after" }],
      100,
    );
    expect(chunks).toEqual([
      { text: "before", start: 0, end: 10 },
      { text: words.slice(0, 14).join(" "), start: 10, end: 19.7 },
      { text: words.slice(14, 28).join(" "), start: 19.8, end: 29.5 },
      { text: words.slice(28).join(" "), start: 29.6, end: 30.9 },
      { text: "after", start: 31, end: 32 },
    ]);
  });

  it("keeps a word longer than the size whole, in a chunk of its own", () => {
    const word = "x".repeat(150);
    expect(chunksOf([{ start: 0, duration: 3, text: `short ${word} tail` }], 100).map((chunk) => chunk.text)).toEqual([
      "short",
      word,
      "tail",
    ]);
  });

  it("counts characters as code points: 100 emoji fit a chunk of 100", () => {
    const emoji = "👍".repeat(50);
    const chunks = chunksOf(
      [
        { start: 0, duration: 1, text: emoji },
        { start: 1, duration: 1, text: "👍".repeat(49) },
      ],
      100,
    );
    expect(chunks).toEqual([{ text: `${emoji} ${"👍".repeat(49)}`, start: 0, end: 2 }]);
  });

  it("keeps its promises for any transcript and size", () => {
    fc.assert(
      fc.property(segmentLists, fc.integer({ min: 100, max: 400 }), (segments, size) => {
        const chunks = chunksOf(segments, size);
        expect(chunks.map((chunk) => chunk.text).join(" ")).toBe(textOf(segments));
        for (const chunk of chunks) {
          const loneWord = !chunk.text.includes(" ");
          if (!loneWord) expect(characterCount(chunk.text)).toBeLessThanOrEqual(size);
          expect(chunk.start).toBeLessThanOrEqual(chunk.end);
        }
        for (let index = 1; index < chunks.length; index++) {
          expect(chunks[index]?.start).toBeGreaterThanOrEqual(chunks[index - 1]?.end ?? 0);
        }
        // A segment that fits is never cut: its text lies whole inside one chunk.
        for (const segment of segments) {
          if (characterCount(segment.text) <= size && segment.text.trim() !== "") {
            expect(chunks.some((chunk) => ` ${chunk.text} `.includes(` ${segment.text} `))).toBe(true);
          }
        }
      }),
    );
  });

  it("gives no chunks for no segments", () => {
    expect(chunksOf([], 100)).toEqual([]);
  });

  it("cuts a 10 MiB segment, such as an untimed publisher transcript, into 200,000 chunks", () => {
    // Two words of 50 characters make 101 with their space: each word is a chunk of its own.
    const words = Math.floor((10 * 1024 * 1024) / 51);
    const text = Array.from({ length: words }, (_, index) => String(index).padStart(50, "w")).join(" ");
    const chunks = chunksOf([{ start: 0, duration: 3_600, text }], 100);
    expect(chunks).toHaveLength(words);
    expect(chunks.at(-1)).toEqual({ text: String(words - 1).padStart(50, "w"), start: expect.any(Number), end: 3_600 });
  });
});

describe("chunksByChapter", () => {
  const ten = (start: number, text: string): Segment => ({ start, duration: 10, text });
  const talk = [ten(0, "Welcome back."), ten(10, "First topic."), ten(20, "More on it."), ten(30, "Second topic.")];
  const chapters: Chapter[] = [
    { title: "Intro", start: 0, end: 10 },
    { title: "First", start: 10, end: 30 },
    { title: "Second", start: 30, end: 40 },
  ];

  it("makes one chunk per chapter, each naming it, without a size", () => {
    expect(chunksByChapter(talk, chapters, undefined)).toEqual([
      { text: "Welcome back.", start: 0, end: 10, chapter: "Intro" },
      { text: "First topic. More on it.", start: 10, end: 30, chapter: "First" },
      { text: "Second topic.", start: 30, end: 40, chapter: "Second" },
    ]);
  });

  it("cuts a chapter longer than the size into several chunks of that chapter", () => {
    const long = Array.from({ length: 12 }, (_, index) => ten(10 + index * 10, "word ".repeat(9).trim()));
    const chunks = chunksByChapter([ten(0, "Welcome back."), ...long], [chapters[0], chapters[1]] as Chapter[], 100);
    expect(chunks[0]).toEqual({ text: "Welcome back.", start: 0, end: 10, chapter: "Intro" });
    const first = chunks.slice(1);
    expect(first.length).toBeGreaterThan(1);
    for (const chunk of first) {
      expect(chunk.chapter).toBe("First");
      expect(characterCount(chunk.text)).toBeLessThanOrEqual(100);
    }
  });

  it("never joins the end of one chapter to the start of the next, however small", () => {
    expect(chunksByChapter(talk, chapters, 10_000).map((chunk) => chunk.chapter)).toEqual(["Intro", "First", "Second"]);
  });

  it("leaves segments before the first chapter in chunks without one", () => {
    const late: Chapter[] = [{ title: "Main", start: 20, end: null }];
    expect(chunksByChapter(talk, late, undefined)).toEqual([
      { text: "Welcome back. First topic.", start: 0, end: 20 },
      { text: "More on it. Second topic.", start: 20, end: 40, chapter: "Main" },
    ]);
  });

  it("cuts by size alone without chapters, and into one chunk without a size either", () => {
    expect(chunksByChapter(talk, [], 100)).toEqual(chunksOf(talk, 100));
    expect(chunksByChapter(talk, [], undefined)).toEqual([
      { text: "Welcome back. First topic. More on it. Second topic.", start: 0, end: 40 },
    ]);
  });

  it("skips chapters no segment falls in", () => {
    const crowded: Chapter[] = [
      { title: "A", start: 0, end: 1 },
      { title: "B", start: 1, end: 2 },
      { title: "C", start: 2, end: 40 },
    ];
    expect(chunksByChapter(talk, crowded, undefined).map((chunk) => chunk.chapter)).toEqual(["A", "C"]);
  });

  it("keeps its promises for any transcript, chapters and size", () => {
    const chapterStarts = fc.uniqueArray(fc.integer({ min: 0, max: 200_000 }), { maxLength: 12 });
    fc.assert(
      fc.property(
        segmentLists,
        chapterStarts,
        fc.option(fc.integer({ min: 100, max: 400 }), { nil: undefined }),
        (segments, starts, size) => {
          const sorted = [...starts].sort((a, b) => a - b).map((ms) => ms / 1000);
          const chapterList = sorted.map((start, index) => ({
            title: `Chapter ${index}`,
            start,
            end: sorted[index + 1] ?? null,
          }));
          const chunks = chunksByChapter(segments, chapterList, size);
          expect(chunks.map((chunk) => chunk.text).join(" ")).toBe(textOf(segments));
          for (const chunk of chunks) {
            if (size !== undefined && chunk.text.includes(" ")) {
              expect(characterCount(chunk.text)).toBeLessThanOrEqual(size);
            }
            const chapter = chapterList.find((candidate) => candidate.title === chunk.chapter);
            if (chapter) expect(chunk.start).toBeGreaterThanOrEqual(Math.round(chapter.start * 1000) / 1000);
            else expect(chunk.chapter).toBeUndefined();
          }
        },
      ),
    );
  });
});

describe("renderTranscript", () => {
  it("writes the subtitles of the contract's conformance file, byte for byte", () => {
    expect(renderTranscript(subtitles.segments, { format: "srt" })).toEqual({
      format: "srt",
      subtitles: subtitles.srt,
    });
    expect(renderTranscript(subtitles.segments, { format: "vtt" })).toEqual({
      format: "vtt",
      subtitles: subtitles.vtt,
    });
  });

  it("writes the WebVTT of the conformance file's timed words with words, and its SubRip without them", () => {
    expect(renderTranscript(subtitles.words.segments, { format: "vtt", words: true })).toEqual({
      format: "vtt",
      subtitles: subtitles.words.vtt,
      word_timing: "source",
    });
    expect(renderTranscript(subtitles.words.segments, { format: "srt" })).toEqual({
      format: "srt",
      subtitles: subtitles.words.srt,
    });
    const plain = renderTranscript(subtitles.words.segments, { format: "vtt" });
    expect(plain.subtitles).not.toContain("<00:");
  });

  it("gives only what the format names, and chunks when a size is given", () => {
    expect(renderTranscript(surfaceGo, { format: "segments" })).toEqual({ segments: surfaceGo });
    expect(renderTranscript(surfaceGo, { format: "text" })).toEqual({ text: textOf(surfaceGo) });
    expect(renderTranscript(surfaceGo, { format: "srt" })).toEqual({ format: "srt", subtitles: toSrt(surfaceGo) });
    expect(renderTranscript(surfaceGo, { format: "vtt", chunkSize: 100 })).toEqual({
      format: "vtt",
      subtitles: toVtt(surfaceGo),
      chunks: chunksOf(surfaceGo, 100),
    });
  });

  it("writes a transcript without words as subtitles without cues", () => {
    const wordless = [{ start: 0, duration: 1, text: " " }];
    expect(toSrt(wordless)).toBe("");
    expect(toVtt(wordless)).toBe("WEBVTT\n");
    expect(cuesIn(toVtt(wordless))).toEqual([]);
  });
});
