import type { LookupFunction } from "node:net";
import type { EpisodePage } from "../../adapters/audio-sources/episode-pages.ts";
import { decodeText } from "../../adapters/audio-sources/text-decoding.ts";
import type { AddressRule } from "../../adapters/net/address-rule.ts";
import { megabytes } from "../../adapters/net/media-download.ts";
import { createPublicFetch, type PublicFetch, readBodyWithin } from "../../adapters/net/public-fetch.ts";
import { IsolatedParser } from "../../adapters/parsing/isolated-parser.ts";
import { SourceError } from "../source-error.ts";

/** How the podcast directory, Spotify's pages and its Web API are reached: as feeds and media are. */
export interface WebReaderConfig {
  /** `VERBATIM_ALLOW_PRIVATE_TARGETS=1`: private addresses may be fetched (tests, private deployments). */
  allowPrivateTargets: boolean;
  /** `VERBATIM_PROXY_URLS`: every call goes through these, in turn. */
  proxyUrls?: readonly string[];
  /** `VERBATIM_CA_FILE`'s certificate authorities, trusted besides Node's. */
  ca?: readonly string[];
  /** Milliseconds to connect and for each pause in an answer; default 15 s. */
  requestTimeoutMs?: number;
  /** Milliseconds one call may take in all; default 30 s. */
  callTimeoutMs?: number;
  /** Resolves host names (default `dns.lookup`): for tests. */
  lookup?: LookupFunction;
  /** Replaces the public-address rule: for tests only. */
  addressRule?: AddressRule;
}

/** One call: its method, headers and body, and the most bytes its answer may have. */
export interface WebCall {
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
  maxBytes: number;
  signal?: AbortSignal;
}

/** An answer, read within its byte cap; the body of a status other than 2xx is left unread. */
export interface WebAnswer {
  status: number;
  text: string;
}

/**
 * Reads the podcast directory, Spotify's pages and its Web API through the public fetch: the
 * public-address rule on every hop, the proxies, a byte cap per answer and a deadline per call.
 * Failures are `SourceError`s; a status is the caller's to judge.
 */
export class WebReader {
  constructor(
    private readonly fetch: PublicFetch,
    private readonly parser: IsolatedParser,
    private readonly callTimeoutMs: number,
  ) {}

  async read(url: URL, call: WebCall): Promise<WebAnswer> {
    const deadline = AbortSignal.timeout(this.callTimeoutMs);
    try {
      const response = await this.fetch(url, {
        ...(call.method ? { method: call.method } : {}),
        ...(call.headers ? { headers: call.headers } : {}),
        ...(call.body === undefined ? {} : { body: call.body }),
        signal: call.signal ? AbortSignal.any([call.signal, deadline]) : deadline,
      });
      if (!response.ok) {
        await response.body?.cancel().catch(() => undefined);
        return { status: response.status, text: "" };
      }
      const bytes = await readBodyWithin(
        response,
        url,
        call.maxBytes,
        () =>
          new SourceError(
            "invalid_input",
            `${url.host} answered more than ${megabytes(call.maxBytes)} for ${url.href}.`,
          ),
      );
      return { status: response.status, text: decodeText(bytes, response.headers.get("content-type")) };
    } catch (error) {
      if (call.signal?.aborted) throw error;
      throw sourceErrorOfFetch(error);
    }
  }

  /** A JSON answer; `unparseable` when the body is no JSON. */
  async json(url: URL, call: WebCall): Promise<{ status: number; value: unknown }> {
    const answer = await this.read(url, { ...call, headers: { accept: "application/json", ...call.headers } });
    if (answer.status < 200 || answer.status > 299) return { status: answer.status, value: null };
    try {
      return { status: answer.status, value: JSON.parse(answer.text) as unknown };
    } catch (error) {
      throw new SourceError("unparseable", `${url.host} answered ${url.href} with something that is no JSON.`, {
        cause: error,
      });
    }
  }

  /** An HTML page's metadata, parsed off the event loop; null for a status other than 2xx. */
  async page(url: URL, call: WebCall): Promise<{ status: number; page: EpisodePage | null }> {
    const answer = await this.read(url, { ...call, headers: { accept: "text/html", ...call.headers } });
    if (answer.status < 200 || answer.status > 299) return { status: answer.status, page: null };
    try {
      return {
        status: answer.status,
        page: await this.parser.parse(`The page ${url.href}`, "episodePage", answer.text, url.href),
      };
    } catch (error) {
      throw sourceErrorOfFetch(error);
    }
  }
}

/** A reader on a public fetch and a parsing thread of its own, and their shutdown. */
export type ClosableWebReader = WebReader & { close(): Promise<void> };

export function createWebReader(config: WebReaderConfig): ClosableWebReader {
  const fetch = createPublicFetch({
    allowPrivateTargets: config.allowPrivateTargets,
    timeoutMs: config.requestTimeoutMs ?? 15_000,
    ...(config.proxyUrls ? { proxyUrls: config.proxyUrls } : {}),
    ...(config.ca ? { ca: config.ca } : {}),
    ...(config.lookup ? { lookup: config.lookup } : {}),
    ...(config.addressRule ? { addressRule: config.addressRule } : {}),
  });
  const parser = new IsolatedParser();
  const reader = new WebReader(fetch, parser, config.callTimeoutMs ?? 30_000);
  return Object.assign(reader, {
    close: async () => {
      await Promise.all([fetch.close(), parser.close()]);
    },
  });
}

/**
 * A failure of the public fetch or the parser as the directory's: told with the advice of its
 * kind, as a source's failures are, where the fetch's own message stands alone; a redirect loop
 * is a refusal of the platform's. Anything else passes unchanged.
 */
export function sourceErrorOfFetch(error: unknown): unknown {
  if (!(error instanceof SourceError)) return error;
  if (error.kind === "failed") return new SourceError("blocked", error.message, { cause: error });
  if (error.advice === null) return new SourceError(error.kind, error.message, { cause: error });
  return error;
}
