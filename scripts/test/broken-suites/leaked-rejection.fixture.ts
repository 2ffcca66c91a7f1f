import { expect, it } from "vitest";

it("passes but leaks a rejection no test owns", () => {
  void Promise.reject(new Error("leaked"));
  expect(true).toBe(true);
});
