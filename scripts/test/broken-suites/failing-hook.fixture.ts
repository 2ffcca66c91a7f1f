import { beforeAll, describe, expect, it } from "vitest";

describe("a suite whose beforeAll throws", () => {
  beforeAll(() => {
    throw new Error("the server did not start");
  });
  it("is skipped, never run", () => expect(true).toBe(true));
});
