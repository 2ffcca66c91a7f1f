import { Verbatim, type VerbatimOptions } from "@verbatim/sdk";
import type { TestServer } from "./server.ts";

/** The Node SDK with the test account's key, pointed at the server; `options` override either or tune the transport. */
export function sdkFor(server: TestServer, options: VerbatimOptions = {}): Verbatim {
  return new Verbatim({ apiKey: server.key.key, baseUrl: server.baseUrl, ...options });
}
