import { describe, expect, it } from "vitest";

describe("a suite", () => {
  it("has a test that fails", () => expect(1).toBe(2));
});
