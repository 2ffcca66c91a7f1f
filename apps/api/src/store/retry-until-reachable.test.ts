import { describe, expect, it } from "vitest";
import { whenReachable } from "./retry-until-reachable.ts";

/** What pg's client throws when the server goes away mid-query. */
const lostConnection = () => new Error("Connection terminated unexpectedly");

describe("whenReachable", () => {
  it("runs the action again each second while the store cannot be reached, and answers its result", async () => {
    const startedAt = Date.now();
    let calls = 0;
    const result = await whenReachable(async () => {
      calls++;
      if (calls < 3) throw lostConnection();
      return "recorded";
    }, 10_000);
    expect(result).toBe("recorded");
    expect(calls).toBe(3);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(1_900);
  });

  it("throws any other failure at once", async () => {
    let calls = 0;
    const failure = new Error("duplicate key value violates unique constraint");
    await expect(
      whenReachable(async () => {
        calls++;
        throw failure;
      }, 10_000),
    ).rejects.toBe(failure);
    expect(calls).toBe(1);
  });

  it("throws the last failure once its time is up", async () => {
    let calls = 0;
    await expect(
      whenReachable(async () => {
        calls++;
        throw lostConnection();
      }, 1_500),
    ).rejects.toThrow(/Connection terminated/);
    // At 0 s, 1 s, then 2 s, past the 1.5 s allowed.
    expect(calls).toBe(3);
  });

  it("stops waiting once the signal aborts", async () => {
    const controller = new AbortController();
    let calls = 0;
    const waiting = whenReachable(
      async () => {
        calls++;
        throw lostConnection();
      },
      60_000,
      controller.signal,
    );
    const startedAt = Date.now();
    setTimeout(() => controller.abort(), 1_500);
    await expect(waiting).rejects.toThrow(/Connection terminated/);
    // At 0 s and 1 s; the abort at 1.5 s ends the wait for the next.
    expect(calls).toBe(2);
    expect(Date.now() - startedAt).toBeLessThan(1_900);
  });
});
