/**
 * Seconds to wait before each retry of a webhook delivery: the first retry within 10 s, then
 * roughly exponential, 11 attempts over 85,355 s (23 h 42 min) in all. After the last retry
 * fails, the delivery is `failed`.
 */
export const defaultRetryScheduleSeconds: readonly number[] = [5, 30, 120, 600, 1800, 3600, 7200, 14400, 28800, 28800];

/**
 * Reads `VERBATIM_WEBHOOK_RETRY_SCHEDULE`, comma-separated whole seconds between attempts, into
 * milliseconds; unset or empty keeps the default. A bad value throws a message naming the variable.
 */
export function retryDelaysMsFrom(value: string | undefined): number[] {
  const seconds = value === undefined || value.trim() === "" ? defaultRetryScheduleSeconds : parseSeconds(value);
  return seconds.map((delay) => delay * 1000);
}

function parseSeconds(value: string): number[] {
  const parts = value.split(",").map((part) => part.trim());
  if (!parts.every((part) => /^[1-9]\d*$/.test(part))) {
    throw new Error(
      `VERBATIM_WEBHOOK_RETRY_SCHEDULE must list whole seconds above 0 between attempts, such as "5,30,120,600", not ${JSON.stringify(value)}`,
    );
  }
  return parts.map(Number);
}
