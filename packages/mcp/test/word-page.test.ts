import { toText } from "@verbatim/sdk";
import { describe, expect, it } from "vitest";
import { pageOf } from "../src/text-page.ts";
import { wordsInPage } from "../src/word-page.ts";

const segments = [
  {
    start: 0,
    duration: 2,
    text: "ask not 👍",
    words: [
      { text: "ask", start: 0, duration: 0.5 },
      { text: "not", start: 0.5, duration: 0.5 },
      { text: "👍", start: 1, duration: 1 },
    ],
  },
  {
    start: 2,
    duration: 1,
    text: "what your country",
    words: [
      { text: "what", start: 2, duration: 0.3 },
      { text: "your", start: 2.3, duration: 0.3 },
      { text: "country", start: 2.6, duration: 0.4 },
    ],
  },
];

describe("wordsInPage", () => {
  it("puts each word in the one page its first character is in, counting characters as pages do", () => {
    for (const timestamps of [false, true]) {
      const whole = toText(segments, { timestamps });
      for (const size of [1, 3, 7, 100]) {
        const seen: string[] = [];
        for (let offset = 0; offset < Array.from(whole).length; offset += size) {
          seen.push(...wordsInPage(whole, segments, pageOf(whole, offset, size)).map((word) => word.text));
        }
        expect(seen, `${timestamps} ${size}`).toEqual(["ask", "not", "👍", "what", "your", "country"]);
      }
    }
  });

  it("gives a page the words that start in it, a word cut by the page's end included", () => {
    const whole = toText(segments);
    expect(wordsInPage(whole, segments, pageOf(whole, 4, 8)).map((word) => word.text)).toEqual(["not", "👍", "what"]);
  });
});
