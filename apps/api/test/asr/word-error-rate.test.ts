import { describe, expect, it } from "vitest";
import { normalisedWords, wordErrorRate } from "./word-error-rate.ts";

describe("wordErrorRate", () => {
  it("is 0 for the same words whatever the case and punctuation", () => {
    expect(wordErrorRate("And so, my fellow Americans!", "and so my fellow americans")).toBe(0);
  });

  it("counts a substitution, a deletion and an insertion against the reference length", () => {
    expect(wordErrorRate("a b c d", "a x c d")).toBe(0.25);
    expect(wordErrorRate("a b c d", "a c d")).toBe(0.25);
    expect(wordErrorRate("a b c d", "a b c d e")).toBe(0.25);
    expect(wordErrorRate("a b c d", "")).toBe(1);
  });

  it("finds the cheapest alignment, not a position-by-position comparison", () => {
    // Shifting every word by one is one deletion and one insertion, not four substitutions.
    expect(wordErrorRate("ask what you can", "what you can do")).toBe(0.5);
  });

  it("keeps apostrophes inside words and drops quotes around them", () => {
    expect(normalisedWords("'Don't' — stop.")).toEqual(["don't", "stop"]);
  });
});
