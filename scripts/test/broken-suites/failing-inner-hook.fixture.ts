import { beforeAll, describe, expect, it } from "vitest";

it("passes outside the broken suite", () => expect(true).toBe(true));

describe("outer", () => {
  describe("inner, whose beforeAll throws", () => {
    beforeAll(() => {
      throw new Error("inner set-up failed");
    });
    it("is skipped, never run", () => expect(true).toBe(true));
  });
});
