import { ConnectionError, TimeoutError } from "./api-error.ts";

/** How one call is sent. Every resource method takes these as its last argument. */
export interface RequestOptions {
  /** Cancels the call, its retries and its waits; the call then rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Milliseconds one attempt may take, answer body included. Default: the client's `timeout`. */
  timeout?: number;
  /** Retries after the first attempt. Default: the client's `maxRetries`. */
  maxRetries?: number;
  /** The `Idempotency-Key` of a POST; one is generated when omitted. Every retry reuses it. */
  idempotencyKey?: string;
}

/** The client-wide settings the transport applies to every call. */
export interface TransportSettings {
  fetch: typeof globalThis.fetch;
  timeout: number;
  maxRetries: number;
  headers: Record<string, string>;
}

/** The longest `Retry-After` the client waits for; a longer one is answered to the caller as the error it is. */
export const maxRetryAfterSeconds = 60;
const firstBackoffMs = 500;
const maxBackoffMs = 8_000;

/**
 * The `fetch` openapi-fetch sends through, made for one call: it adds the client's headers and
 * the call's idempotency key, bounds each attempt by `timeout` (the body included, so a server
 * that stalls mid-answer times out too), and retries 429, 5xx and connection failures with
 * exponential backoff and full jitter, or after a `Retry-After` of at most a minute; a 409 only
 * after its `Retry-After`.
 */
export function fetchForCall(settings: TransportSettings, options: RequestOptions = {}): typeof globalThis.fetch {
  const timeout = options.timeout ?? settings.timeout;
  const maxRetries = options.maxRetries ?? settings.maxRetries;
  return async (input, init) => {
    const original = input instanceof Request && init === undefined ? input : new Request(input, init);
    // openapi-fetch puts a `raw` caller's signal on the Request it builds, not in `init`.
    const signal = options.signal ?? original.signal;
    const headers = new Headers(original.headers);
    for (const [name, value] of Object.entries(settings.headers)) if (!headers.has(name)) headers.set(name, value);
    if (original.method === "POST" && !headers.has("idempotency-key")) {
      headers.set("idempotency-key", options.idempotencyKey ?? crypto.randomUUID());
    }
    const body = original.body ? await original.arrayBuffer() : undefined;

    for (let attempt = 0; ; attempt++) {
      signal?.throwIfAborted();
      const outcome = await attemptOnce(settings.fetch, original, headers, body, timeout, signal);
      const retriesLeft = attempt < maxRetries;
      if (outcome instanceof Response) {
        const wait = retryDelayMs(outcome, attempt);
        if (!retriesLeft || wait === null) return outcome;
        await sleep(wait, signal);
      } else {
        if (!retriesLeft) throw outcome;
        await sleep(backoffMs(attempt), signal);
      }
    }
  };
}

async function attemptOnce(
  fetchImpl: typeof globalThis.fetch,
  original: Request,
  headers: Headers,
  body: ArrayBuffer | undefined,
  timeout: number,
  signal: AbortSignal | undefined,
): Promise<Response | ConnectionError> {
  const attemptTimeout = AbortSignal.timeout(timeout);
  const attemptSignal = signal ? AbortSignal.any([signal, attemptTimeout]) : attemptTimeout;
  try {
    const response = await fetchImpl(original.url, {
      method: original.method,
      headers,
      body: body ?? null,
      signal: attemptSignal,
    });
    const answered = await response.arrayBuffer();
    return new Response(nullBodyStatuses.has(response.status) ? null : answered, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    if (attemptTimeout.aborted) {
      return new TimeoutError(`${original.method} ${original.url} got no complete answer within ${timeout} ms`, {
        cause: error,
      });
    }
    return new ConnectionError(`${original.method} ${original.url} failed: ${describe(error)}`, { cause: error });
  }
}

const nullBodyStatuses = new Set([101, 204, 205, 304]);

/**
 * How long to wait before retrying an answer, or `null` when it is not retried. A 409 is retried
 * only with `Retry-After`: the key's first request is still running, and a retry then replays its
 * answer (or runs, if that request was lost with its server); another body's 409 has none.
 */
function retryDelayMs(response: Response, attempt: number): number | null {
  const retryAfter = retryAfterSeconds(response.headers);
  if (response.status === 409)
    return retryAfter !== null && retryAfter <= maxRetryAfterSeconds ? retryAfter * 1000 : null;
  if (response.status !== 429 && response.status < 500) return null;
  if (retryAfter === null) return backoffMs(attempt);
  return retryAfter <= maxRetryAfterSeconds ? retryAfter * 1000 : null;
}

/** `Retry-After` in seconds, as a number of seconds or an HTTP date; `null` when absent or unreadable. */
export function retryAfterSeconds(headers: Headers): number | null {
  const value = headers.get("retry-after");
  if (value === null) return null;
  if (/^\d+$/.test(value.trim())) return Number(value);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

/** Full jitter: a uniform wait between 0 and an exponentially growing ceiling. */
export function backoffMs(attempt: number, random: () => number = Math.random): number {
  return Math.round(random() * Math.min(maxBackoffMs, firstBackoffMs * 2 ** attempt));
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

function describe(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  return cause instanceof Error ? cause.message : String(cause);
}
