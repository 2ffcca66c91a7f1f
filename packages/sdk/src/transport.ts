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
  /** Sent with every call, named in lower case; a call's own header of the same name wins. */
  headers: Record<string, string>;
}

/** Header names in lower case, as HTTP compares them; of two spellings of one name, the later wins. */
export function lowerCaseNames(headers: Record<string, string>): Record<string, string> {
  const named: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) named[name.toLowerCase()] = value;
  return named;
}

/** The longest `Retry-After` the client waits for; a longer one is answered to the caller as the error it is. */
export const maxRetryAfterSeconds = 60;
const firstBackoffMs = 500;
const maxBackoffMs = 8_000;

/**
 * What openapi-fetch builds in place of a `Request` for the SDK's own calls: the URL and init as
 * given, without the copy of headers, body and signal a `Request` makes (`fetch` makes its own).
 */
export class PlannedRequest {
  readonly url: string;
  readonly method: string;
  readonly headers: Headers;
  readonly body: RequestInit["body"];

  constructor(url: string, init: RequestInit = {}) {
    this.url = url;
    this.method = init.method ?? "GET";
    this.headers = init.headers instanceof Headers ? init.headers : new Headers(init.headers);
    this.body = init.body ?? null;
  }
}

/**
 * What the SDK's own calls give openapi-fetch: the call's fetch, and `PlannedRequest` to build in
 * place of a `Request`; the call's signal reaches the fetch through `options`.
 */
export function callInit(
  client: { fetchFor(options?: RequestOptions): (request: Request) => Promise<Response> },
  options?: RequestOptions,
): { fetch: (request: Request) => Promise<Response>; Request: typeof Request } {
  // openapi-fetch only constructs it and hands it to this fetch, which knows it for what it is.
  return { fetch: client.fetchFor(options), Request: PlannedRequest as unknown as typeof Request };
}

/**
 * An answer read in full within its attempt, for the SDK's own calls: the status, the headers as
 * they came and the body's text, which is all openapi-fetch and `unwrap` read of a `Response`.
 */
class BufferedAnswer {
  constructor(
    readonly status: number,
    readonly statusText: string,
    readonly headers: Headers,
    private readonly bodyText: string,
  ) {}

  get ok(): boolean {
    return this.status >= 200 && this.status < 300;
  }

  async text(): Promise<string> {
    return this.bodyText;
  }

  async json(): Promise<unknown> {
    return JSON.parse(this.bodyText);
  }
}

/** The parts of one call that every attempt sends alike. */
interface Outgoing {
  url: string;
  method: string;
  /** A record, named in lower case: `fetch` reads one without the copy it makes of a `Headers`. */
  headers: Record<string, string>;
  body: RequestInit["body"];
  signal: AbortSignal | undefined;
  /** Whether the answer goes back as a `Response` (a `raw` call) or as a `BufferedAnswer`. */
  asResponse: boolean;
}

/**
 * The `fetch` openapi-fetch sends through, made for one call: it adds the client's headers and
 * the call's idempotency key, bounds each attempt by `timeout` (the body included, so a server
 * that stalls mid-answer times out too), and retries 429, 5xx and connection failures with
 * exponential backoff and full jitter, or after a `Retry-After` of at most a minute; a 409 only
 * after its `Retry-After`. A `PlannedRequest` is sent as it is and answered with a
 * `BufferedAnswer`; a `Request` (a `raw` call) is copied and answered with a `Response`.
 */
export function fetchForCall(settings: TransportSettings, options: RequestOptions = {}): typeof globalThis.fetch {
  const timeout = options.timeout ?? settings.timeout;
  const maxRetries = options.maxRetries ?? settings.maxRetries;
  return async (input, init) => {
    const outgoing =
      input instanceof PlannedRequest
        ? plannedOutgoing(input, settings, options)
        : await requestOutgoing(input, init, settings, options);
    if (outgoing.method === "POST" && outgoing.headers["idempotency-key"] === undefined) {
      outgoing.headers["idempotency-key"] = options.idempotencyKey ?? crypto.randomUUID();
    }

    for (let attempt = 0; ; attempt++) {
      outgoing.signal?.throwIfAborted();
      const outcome = await attemptOnce(settings.fetch, outgoing, timeout);
      const retriesLeft = attempt < maxRetries;
      if (outcome instanceof Error) {
        if (!retriesLeft) throw outcome;
        await sleep(backoffMs(attempt), outgoing.signal);
      } else {
        const wait = retryDelayMs(outcome, attempt);
        // A `BufferedAnswer` stands in for the `Response` openapi-fetch expects: it reads no more of one.
        if (!retriesLeft || wait === null) return outcome as Response;
        await sleep(wait, outgoing.signal);
      }
    }
  };
}

/** A planned request is this call's own: its body is sent as it is. */
function plannedOutgoing(planned: PlannedRequest, settings: TransportSettings, options: RequestOptions): Outgoing {
  const { url, method, body } = planned;
  const headers = withCallHeaders(settings, planned.headers);
  return { url, method, headers, body, signal: options.signal, asResponse: false };
}

async function requestOutgoing(
  input: Parameters<typeof globalThis.fetch>[0],
  init: RequestInit | undefined,
  settings: TransportSettings,
  options: RequestOptions,
): Promise<Outgoing> {
  const original = input instanceof Request && init === undefined ? input : new Request(input, init);
  return {
    url: original.url,
    method: original.method,
    headers: withCallHeaders(settings, original.headers),
    body: original.body ? await original.arrayBuffer() : null,
    // openapi-fetch puts a `raw` caller's signal on the Request it builds, not in `init`.
    signal: options.signal ?? original.signal,
    asResponse: true,
  };
}

/** The client's headers, overridden by the call's own (a `Headers` names them in lower case). */
function withCallHeaders(settings: TransportSettings, own: Headers): Record<string, string> {
  const headers = { ...settings.headers };
  own.forEach((value, name) => {
    headers[name] = value;
  });
  return headers;
}

async function attemptOnce(
  fetchImpl: typeof globalThis.fetch,
  outgoing: Outgoing,
  timeout: number,
): Promise<Response | BufferedAnswer | ConnectionError> {
  const { url, method, headers, body, signal } = outgoing;
  const attempt = new AbortController();
  let timedOut = false;
  // A timer cleared with the attempt, where `AbortSignal.timeout` would stay pending for the whole
  // `timeout`, and a listener in place of `AbortSignal.any`: both cost a call more than the answer's wait.
  const timer = setTimeout(() => {
    timedOut = true;
    attempt.abort(new DOMException(`${method} ${url} timed out`, "TimeoutError"));
  }, timeout);
  const onAbort = () => attempt.abort(signal?.reason);
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    const response = await fetchImpl(url, { method, headers, body, signal: attempt.signal });
    if (!outgoing.asResponse) {
      return new BufferedAnswer(response.status, response.statusText, response.headers, await response.text());
    }
    const answered = await response.arrayBuffer();
    return new Response(nullBodyStatuses.has(response.status) ? null : answered, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    if (timedOut) {
      return new TimeoutError(`${method} ${url} got no complete answer within ${timeout} ms`, { cause: error });
    }
    return new ConnectionError(`${method} ${url} failed: ${describe(error)}`, { cause: error });
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  }
}

const nullBodyStatuses = new Set([101, 204, 205, 304]);

/**
 * How long to wait before retrying an answer, or `null` when it is not retried. A 409 is retried
 * only with `Retry-After`: the key's first request is still running, and a retry then replays its
 * answer (or runs, if that request was lost with its server); another body's 409 has none.
 */
function retryDelayMs(response: Pick<Response, "status" | "headers">, attempt: number): number | null {
  if (response.status !== 409 && response.status !== 429 && response.status < 500) return null;
  const retryAfter = retryAfterSeconds(response.headers);
  if (response.status === 409)
    return retryAfter !== null && retryAfter <= maxRetryAfterSeconds ? retryAfter * 1000 : null;
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
