import { describe, expect, it } from "vitest";
import { pageOf } from "../src/text-page.ts";

describe("pageOf", () => {
  it("answers a text shorter than max_chars whole, not truncated", () => {
    expect(pageOf("short text", 0, 100)).toEqual({
      text: "short text",
      offset: 0,
      total_chars: 10,
      truncated: false,
      next_offset: null,
    });
  });

  it("cuts at max_chars and points next_offset at the rest, which the next page ends with", () => {
    const whole = "abcdefghij";
    const first = pageOf(whole, 0, 4);
    expect(first).toMatchObject({ text: "abcd", truncated: true, next_offset: 4, total_chars: 10 });
    const second = pageOf(whole, 4, 4);
    const third = pageOf(whole, second.next_offset ?? -1, 4);
    expect(third).toMatchObject({ text: "ij", offset: 8, truncated: false, next_offset: null });
    expect(first.text + second.text + third.text).toBe(whole);
  });

  it("counts code points, so a page never splits an emoji or other astral character in two", () => {
    const whole = "😀😀😀";
    const first = pageOf(whole, 0, 2);
    expect(first).toMatchObject({ text: "😀😀", total_chars: 3, next_offset: 2 });
    expect(first.text + pageOf(whole, 2, 2).text).toBe(whole);
  });

  it("answers an offset past the end as an empty last page at the end", () => {
    expect(pageOf("abc", 10, 5)).toEqual({ text: "", offset: 3, total_chars: 3, truncated: false, next_offset: null });
  });
});
