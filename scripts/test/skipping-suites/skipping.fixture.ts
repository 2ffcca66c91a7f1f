import { describe, expect, it } from "vitest";

describe("a suite that skips", () => {
  it("passes", () => expect(1 + 1).toBe(2));
  it.skipIf(true)("is skipped when it is collected", () => expect(true).toBe(false));
  it("skips itself once it finds nothing to test", ({ skip }) => {
    skip("the page under test is missing");
    expect(true).toBe(false);
  });
});
