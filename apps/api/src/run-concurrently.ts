/**
 * Runs `work` over `items` in their order, at most `concurrency` at once (at least one). Once
 * `stop` is aborted no further item starts; those under way finish. The first failure of `work`
 * rejects the whole run at once, as `Promise.all` does, without waiting for the others.
 */
export async function runConcurrently<T>(
  items: readonly T[],
  concurrency: number,
  work: (item: T) => Promise<void>,
  stop?: AbortSignal,
): Promise<void> {
  let next = 0;
  const runner = async () => {
    while (next < items.length && !stop?.aborted) await work(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, concurrency), items.length) }, runner));
}
