import type { operations, paths } from "@verbatim/contract";
import createFetchClient, { type Client } from "openapi-fetch";
import packageJson from "../package.json" with { type: "json" };
import { ConnectionError, TimeoutError, UnexpectedResponseError, VerbatimError } from "./api-error.ts";
import { versionedBaseUrl } from "./bare-client.ts";
import { apiErrorFrom } from "./errors.ts";
import type { ResourceClient } from "./resource.ts";
import { Library } from "./resources/library.ts";
import { Live } from "./resources/live.ts";
import { Monitors } from "./resources/monitors.ts";
import { Transcripts } from "./resources/transcripts.ts";
import { Videos } from "./resources/videos.ts";
import { type Result, type SuccessBody, unwrap } from "./result.ts";
import {
  callInit,
  fetchForCall,
  lowerCaseNames,
  type RequestOptions,
  retryAfterSeconds,
  type TransportSettings,
} from "./transport.ts";

/** The SDK's version, sent in its `User-Agent`. */
export const sdkVersion: string = packageJson.version;

/** How to reach a Verbatim server and how calls behave. */
export interface VerbatimOptions {
  /** The API key (`vb_live_...`). Default: the `VERBATIM_API_KEY` environment variable. */
  apiKey?: string;
  /** The server, with or without `/api/v2`. Default: `VERBATIM_BASE_URL`, else `http://127.0.0.1:8080`. */
  baseUrl?: string;
  /** Milliseconds one attempt may take, answer included. Default: 120,000 (a batch answers within a minute, inline speech recognition may take longer). */
  timeout?: number;
  /** Retries of a call that met a 429, a 5xx or a connection failure. Default: 2. */
  maxRetries?: number;
  /** A fetch implementation, for proxies, tests and runtimes without a global fetch. */
  fetch?: typeof globalThis.fetch;
  /** Headers sent with every call, beside the SDK's own. */
  defaultHeaders?: Record<string, string>;
}

/**
 * A client of the Verbatim v2 API.
 *
 * ```ts
 * const verbatim = new Verbatim({ apiKey: process.env.VERBATIM_API_KEY });
 * const { data } = await verbatim.transcripts.video({ video: "jNQXAC9IVRw" });
 * ```
 */
export class Verbatim implements ResourceClient {
  /** Transcripts, batches, lists and speech recognition jobs. */
  readonly transcripts: Transcripts;
  /** What sources say about items, without their words: title, description, chapters, counts. */
  readonly videos: Videos;
  /** Monitors of YouTube channels and their events. */
  readonly monitors: Monitors;
  /** The transcripts the account has fetched: listed, and searched in full text. */
  readonly library: Library;
  /** Live streams transcribed as they play, and their events. */
  readonly live: Live;
  /**
   * The typed openapi-fetch client under the SDK, for anyone who wants `{ data, error, response }`
   * as openapi-fetch answers it. It sends the SDK's headers, retries and idempotency keys.
   */
  readonly raw: Client<paths>;
  readonly baseUrl: string;
  private readonly settings: TransportSettings;

  constructor(options: VerbatimOptions = {}) {
    const apiKey = options.apiKey ?? process.env.VERBATIM_API_KEY;
    this.baseUrl = versionedBaseUrl(options.baseUrl ?? process.env.VERBATIM_BASE_URL ?? "http://127.0.0.1:8080");
    const maxRetries = options.maxRetries ?? 2;
    const timeout = options.timeout ?? 120_000;
    if (!Number.isInteger(maxRetries) || maxRetries < 0)
      throw new VerbatimError("maxRetries must be a whole number, 0 or more");
    if (!(timeout > 0)) throw new VerbatimError("timeout must be a positive number of milliseconds");
    this.settings = {
      fetch: options.fetch ?? globalThis.fetch.bind(globalThis),
      timeout,
      maxRetries,
      headers: lowerCaseNames({
        ...options.defaultHeaders,
        "User-Agent": `verbatim-node/${sdkVersion}`,
        ...(apiKey ? { Authorization: `Bearer ${apiKey}` } : {}),
      }),
    };
    this.raw = createFetchClient<paths>({ baseUrl: this.baseUrl, fetch: fetchForCall(this.settings) });
    this.transcripts = new Transcripts(this);
    this.videos = new Videos(this);
    this.monitors = new Monitors(this);
    this.library = new Library(this);
    this.live = new Live(this);
  }

  /** The fetch of one call: the client's settings with the call's options. */
  fetchFor(options?: RequestOptions): (request: Request) => Promise<Response> {
    return fetchForCall(this.settings, options);
  }

  async openStream(path: string, init: { headers: Record<string, string>; signal?: AbortSignal }): Promise<Response> {
    const url = `${this.baseUrl}${path}`;
    const attempt = new AbortController();
    const onAbort = () => attempt.abort(init.signal?.reason);
    init.signal?.addEventListener("abort", onAbort, { once: true });
    // The deadline covers the answer's headers only: the body of a stream goes on as long as the stream.
    const timer = setTimeout(
      () => attempt.abort(new TimeoutError(`GET ${url} did not answer in time`)),
      this.settings.timeout,
    );
    let response: Response;
    try {
      response = await this.settings.fetch(url, {
        headers: { ...this.settings.headers, accept: "text/event-stream", ...init.headers },
        signal: attempt.signal,
      });
    } catch (error) {
      init.signal?.removeEventListener("abort", onAbort);
      if (init.signal?.aborted) throw init.signal.reason;
      if (error instanceof Error && error.name === "AbortError" && attempt.signal.reason instanceof TimeoutError)
        throw attempt.signal.reason;
      throw new ConnectionError(`GET ${url} failed: ${error instanceof Error ? error.message : String(error)}`, {
        cause: error,
      });
    } finally {
      clearTimeout(timer);
    }
    if (response.ok) return response;
    init.signal?.removeEventListener("abort", onAbort);
    const requestId = response.headers.get("x-request-id");
    const text = await response.text();
    let block: { code?: unknown; number?: unknown } | undefined;
    try {
      block = (JSON.parse(text) as { error?: { code?: unknown; number?: unknown } }).error;
    } catch {
      block = undefined;
    }
    if (typeof block?.code !== "string" || typeof block.number !== "number") {
      throw new UnexpectedResponseError(response.status, text, requestId);
    }
    throw apiErrorFrom(block as Parameters<typeof apiErrorFrom>[0], {
      status: response.status,
      requestId,
      retryAfter: retryAfterSeconds(response.headers),
    });
  }

  /** The account behind the key: plan, credits and request allowance. A poll: it uses the polling allowance. */
  me(options?: RequestOptions): Promise<Result<SuccessBody<"me">>> {
    return unwrap(this.raw.GET("/me", callInit(this, options)));
  }

  /** Credit usage per day and per operation, between `from` and `to` (UTC dates, inclusive). */
  usage(
    query: NonNullable<operations["getUsage"]["parameters"]["query"]> = {},
    options?: RequestOptions,
  ): Promise<Result<SuccessBody<"getUsage">>> {
    return unwrap(this.raw.GET("/usage", { params: { query }, ...callInit(this, options) }));
  }

  /** Whether the service answers. Needs no key. */
  health(options?: RequestOptions): Promise<Result<SuccessBody<"healthCheck">>> {
    return unwrap(this.raw.GET("/health", callInit(this, options)));
  }

  /** The service and its dependencies (database, queue, speech engine), checked now. */
  deepHealth(options?: RequestOptions): Promise<Result<SuccessBody<"deepHealthCheck">>> {
    return unwrap(this.raw.GET("/health/deep", callInit(this, options)));
  }
}
