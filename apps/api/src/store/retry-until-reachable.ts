/** How often a write that failed is tried again while the store may be away. */
export const unreachableRetryMs = 1_000;

/**
 * Runs `write`, and while it fails, again every second for at most `withinMs`: what a request or a
 * check gives back (an Idempotency-Key, a slot, a claim) is given back as soon as the store answers
 * again after an outage, not when its lock or lease lapses. Resolves after the first attempt, true
 * when it succeeded; never rejects.
 */
export function retryUntilReachable(write: () => Promise<unknown>, withinMs: number): Promise<boolean> {
  const giveUpAt = Date.now() + withinMs;
  const attempt = (): Promise<boolean> =>
    write().then(
      () => true,
      () => {
        if (Date.now() < giveUpAt) setTimeout(() => void attempt(), unreachableRetryMs).unref();
        return false;
      },
    );
  return attempt();
}
