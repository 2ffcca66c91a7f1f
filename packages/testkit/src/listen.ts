import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** An HTTP server on a free loopback port. */
export interface LoopbackServer {
  baseUrl: string;
  /** Closes the server, keep-alive connections included. */
  close(): Promise<void>;
}

/** Serves `app` (an Express app, or any request listener) on port 0 of 127.0.0.1. */
export async function listenOnLoopback(app: RequestListener): Promise<LoopbackServer> {
  const server = await new Promise<Server>((resolve) => {
    const listening = createServer(app).listen(0, "127.0.0.1", () => resolve(listening));
  });
  // Node closes a connection idle for 5 s, and a test whose loop is busy (PGlite runs in it) can
  // send on such a connection before its client's own 4 s timer ran, which resets it: tests
  // met `fetch failed: read ECONNRESET`. Here only the client closes idle connections.
  server.keepAliveTimeout = 10 * 60_000;
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close() {
      server.closeAllConnections();
      return new Promise((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
    },
  };
}
