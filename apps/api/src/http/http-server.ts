import { createServer, type RequestListener, type Server } from "node:http";

/** How long Node gives a connection to send one request, whatever it is for. */
export interface RequestTimeouts {
  /** Until its headers have arrived. */
  headersMs: number;
  /** Until all of it, body included, has arrived. */
  requestMs: number;
}

/**
 * Behind the operations' own body deadlines (60 s at most, counted once the key is checked):
 * they bound the bodies no operation reads (a request answered 401 or 404, a GET sent with a
 * body, which Node reads off after the answer), `/mcp`'s, and slow headers. Node's defaults
 * are 60 s and 300 s.
 */
export const requestTimeouts: RequestTimeouts = { headersMs: 20_000, requestMs: 90_000 };

/** An HTTP server that holds each request to `timeouts`, checked every second instead of Node's 30. */
export function createHttpServer(listener: RequestListener, timeouts: RequestTimeouts = requestTimeouts): Server {
  return createServer(
    { headersTimeout: timeouts.headersMs, requestTimeout: timeouts.requestMs, connectionsCheckingInterval: 1000 },
    listener,
  );
}
