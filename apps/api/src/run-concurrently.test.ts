import { describe, expect, it } from "vitest";
import { runConcurrently } from "./run-concurrently.ts";

/** A task per item that resolves only when the test says so. */
function gatedTasks() {
  const started: number[] = [];
  const release = new Map<number, () => void>();
  const work = (item: number) =>
    new Promise<void>((resolve) => {
      started.push(item);
      release.set(item, resolve);
    });
  return { started, release: (item: number) => release.get(item)?.(), work };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("runConcurrently", () => {
  it("starts the items in their order, never more than the concurrency at once", async () => {
    const tasks = gatedTasks();
    const run = runConcurrently([0, 1, 2, 3, 4], 2, tasks.work);
    await settle();
    expect(tasks.started).toEqual([0, 1]);
    tasks.release(1);
    await settle();
    expect(tasks.started).toEqual([0, 1, 2]);
    for (const item of [0, 2, 3, 4]) {
      tasks.release(item);
      await settle();
    }
    await run;
    expect(tasks.started).toEqual([0, 1, 2, 3, 4]);
  });

  it("runs one at a time when asked for none", async () => {
    const tasks = gatedTasks();
    const run = runConcurrently([0, 1], 0, tasks.work);
    await settle();
    expect(tasks.started).toEqual([0]);
    tasks.release(0);
    await settle();
    tasks.release(1);
    await run;
    expect(tasks.started).toEqual([0, 1]);
  });

  it("starts nothing more once stopped, and waits for what is under way", async () => {
    const tasks = gatedTasks();
    const stop = new AbortController();
    let finished = false;
    const run = runConcurrently([0, 1, 2, 3], 2, tasks.work, stop.signal).then(() => {
      finished = true;
    });
    await settle();
    stop.abort();
    tasks.release(0);
    await settle();
    expect(finished).toBe(false);
    tasks.release(1);
    await run;
    expect(tasks.started).toEqual([0, 1]);
  });

  it("rejects with the first failure, while other items still run", async () => {
    const tasks = gatedTasks();
    const failure = new Error("item 1 failed");
    const run = runConcurrently([0, 1], 2, async (item) => {
      if (item === 1) throw failure;
      await tasks.work(item);
    });
    await expect(run).rejects.toBe(failure);
    expect(tasks.started).toEqual([0]);
  });

  it("resolves at once for no items", async () => {
    await expect(runConcurrently([], 3, async () => {})).resolves.toBeUndefined();
  });
});
