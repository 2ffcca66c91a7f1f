import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { whenReachable } from "./retry-until-reachable.ts";

/** What pg's client throws when the server goes away mid-query. */
const lostConnection = () => new Error("Connection terminated unexpectedly");

/** Whether `promise` has settled yet, read without waiting for it. */
function settledState(promise: Promise<unknown>): () => boolean {
  let settled = false;
  promise.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  return () => settled;
}

// The clock is fake: each wait is exactly as long as the code asks, however busy the machine.
beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("whenReachable", () => {
  it("runs the action again each second while the store cannot be reached, and answers its result", async () => {
    let calls = 0;
    const result = whenReachable(async () => {
      calls++;
      if (calls < 3) throw lostConnection();
      return "recorded";
    }, 10_000);
    const settled = settledState(result);
    await vi.advanceTimersByTimeAsync(0);
    expect(calls).toBe(1);
    await vi.advanceTimersByTimeAsync(999);
    expect(calls).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toBe(2);
    await vi.advanceTimersByTimeAsync(999);
    expect([calls, settled()]).toEqual([2, false]);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toBe(3);
    await expect(result).resolves.toBe("recorded");
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
    const waiting = whenReachable(async () => {
      calls++;
      throw lostConnection();
    }, 1_500);
    const settled = settledState(waiting);
    const rejected = expect(waiting).rejects.toThrow(/Connection terminated/);
    await vi.advanceTimersByTimeAsync(1_999);
    expect([calls, settled()]).toEqual([2, false]);
    // At 0 s, 1 s, then 2 s, past the 1.5 s allowed.
    await vi.advanceTimersByTimeAsync(1);
    await rejected;
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
    const settled = settledState(waiting);
    const rejected = expect(waiting).rejects.toThrow(/Connection terminated/);
    setTimeout(() => controller.abort(), 1_500);
    await vi.advanceTimersByTimeAsync(1_499);
    expect([calls, settled()]).toEqual([2, false]);
    // At 0 s and 1 s; the abort at 1.5 s ends the wait for the next, half a second early.
    await vi.advanceTimersByTimeAsync(1);
    expect(settled()).toBe(true);
    await rejected;
    expect(calls).toBe(2);
  });
});
