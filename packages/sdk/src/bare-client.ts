import type { paths } from "@verbatim/contract";
import createFetchClient, { type Client } from "openapi-fetch";

/** How to reach a server with the bare client. */
export interface BareClientOptions {
  /** The API key (`vb_live_...`). Omit it only for the health endpoint. */
  apiKey?: string;
  /** The server's address, with or without the version path. */
  baseUrl: string;
  /** A fetch implementation, for tests and runtimes without a global fetch. */
  fetch?: (request: Request) => Promise<Response>;
}

/** A bare typed client of the v2 API: every call answers `{ data, error, response }`. */
export type VerbatimClient = Client<paths>;

/**
 * The typed openapi-fetch client alone: no retries, no generated `Idempotency-Key`, no timeout,
 * every answer as it came. For tests of the API itself and for callers who manage all of that;
 * `new Verbatim(...).raw` is the same client with the SDK's transport.
 */
export function createClient(options: BareClientOptions): VerbatimClient {
  return createFetchClient<paths>({
    baseUrl: versionedBaseUrl(options.baseUrl),
    headers: options.apiKey === undefined ? {} : { Authorization: `Bearer ${options.apiKey}` },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}

/** The v2 base URL of a server address given with or without `/api/v2`. */
export function versionedBaseUrl(baseUrl: string): string {
  const trimmed = baseUrl.replace(/\/+$/, "");
  return trimmed.endsWith("/api/v2") ? trimmed : `${trimmed}/api/v2`;
}
