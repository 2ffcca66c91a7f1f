import { FakeYoutube } from "@verbatim/testkit/fake-youtube";
import type { YoutubeAdapterConfig } from "../../src/adapters/youtube/index.ts";
import { createLogger } from "../../src/logger.ts";
import { buildTestAdapters } from "./adapters.ts";
import { startServer, type TestServer, type TestServerOptions } from "./server.ts";

/** How long starting one may take: a fresh PGlite store takes seconds, more while the whole suite runs on 2 cores. */
export const serverStartTimeoutMs = 60_000;

/** The API wired to a fake YouTube. */
export interface YoutubeTestServer {
  server: TestServer;
  fake: FakeYoutube;
  /** The account's balance now. */
  balance(): Promise<number | null>;
  close(): Promise<void>;
}

export interface YoutubeTestServerOptions extends TestServerOptions {
  /** Overrides of the short test timeouts. */
  upstream?: Omit<YoutubeAdapterConfig, "origin">;
}

export async function startYoutubeServer(options: YoutubeTestServerOptions = {}): Promise<YoutubeTestServer> {
  const fake = await FakeYoutube.start();
  const adapters = await buildTestAdapters({
    logger: createLogger("silent"),
    youtube: {
      origin: fake.origin,
      // Loopback answers in milliseconds, but a loaded 2-core machine running the suite can take seconds:
      // an attempt timing out there would be a flaky failure, not a finding. Tests of timeouts set their own.
      attemptTimeoutMs: 2_500,
      budgetMs: 8_000,
      maxAttempts: 3,
      backoffBaseMs: 10,
      ...options.upstream,
    },
  });
  const { upstream: _upstream, ...serverOptions } = options;
  const server = await startServer({ ...serverOptions, adapters: { ...options.adapters, ...adapters } });
  return {
    server,
    fake,
    balance: () => server.platform.credits.balance(server.account.id),
    async close() {
      await server.close();
      await adapters.close();
      await fake.close();
    },
  };
}
