import type { paths } from "@verbatim/contract";
import createFetchClient, { type Client } from "openapi-fetch";

export type { components, ErrorCode, operations, paths } from "@verbatim/contract";

/** How to reach a Verbatim server. */
export interface ClientOptions {
  /** The API key (`vb_live_...`). Omit it only for the health endpoint. */
  apiKey?: string;
  /** The server's address, with or without the version path: `https://verbatim.example.com` or `.../api/v2`. */
  baseUrl: string;
  /** A fetch implementation, for tests and runtimes without a global fetch. */
  fetch?: typeof globalThis.fetch;
}

/** A typed client of the v2 API. Every call answers `{ data, error, response }` as openapi-fetch does. */
export type VerbatimClient = Client<paths>;

/** Creates a client of the v2 API. */
export function createClient(options: ClientOptions): VerbatimClient {
  const headers: Record<string, string> = {};
  if (options.apiKey !== undefined) headers.Authorization = `Bearer ${options.apiKey}`;
  return createFetchClient<paths>({
    baseUrl: versionedBaseUrl(options.baseUrl),
    headers,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}

function versionedBaseUrl(baseUrl: string): string {
  const trimmed = baseUrl.replace(/\/+$/, "");
  return trimmed.endsWith("/api/v2") ? trimmed : `${trimmed}/api/v2`;
}
