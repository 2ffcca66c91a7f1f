import { isStoreUnreachable } from "./database.ts";

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

/**
 * Runs `action` and answers its result; while it fails because the store cannot be reached, runs it
 * again every second for at most `withinMs`, or until `signal` aborts. Any other failure, and the
 * last one once the time is up, is thrown. For work too costly to lose to a brief outage, such as
 * recording a finished transcription: `action` must be safe to run twice.
 */
export async function whenReachable<T>(action: () => Promise<T>, withinMs: number, signal?: AbortSignal): Promise<T> {
  const giveUpAt = Date.now() + withinMs;
  for (;;) {
    try {
      return await action();
    } catch (error) {
      if (!isStoreUnreachable(error) || Date.now() >= giveUpAt || signal?.aborted) throw error;
      await pause(unreachableRetryMs, signal);
      if (signal?.aborted) throw error;
    }
  }
}

/** Waits `ms`, or less if `signal` aborts first. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}
