import { createClient, type VerbatimClient } from "@verbatim/sdk";
import { createApp } from "../../src/app.ts";
import type { AppDeps } from "../../src/deps.ts";
import { createLogger } from "../../src/logger.ts";
import { ServiceMetrics } from "../../src/metrics.ts";
import { createPlatform, type Platform } from "../../src/platform.ts";
import type { AccountView, IssuedKey } from "../../src/services/accounts.ts";
import type { PlanName } from "../../src/services/plans.ts";
import { listenOnLoopback } from "./listen.ts";
import { openTestStore } from "./store.ts";

/** A server on a loopback port, built by `createApp`, with one account and an SDK client using its key. */
export interface TestServer {
  baseUrl: string;
  client: VerbatimClient;
  account: AccountView;
  key: IssuedKey;
  deps: AppDeps;
  platform: Platform;
  /** A client authenticated with another key. */
  clientFor(apiKey: string): VerbatimClient;
  close(): Promise<void>;
}

export interface TestServerOptions {
  plan?: PlanName;
  credits?: number | null;
  now?: () => Date;
  deps?: Partial<Omit<AppDeps, "platform">>;
}

/** Starts `createApp` on port 0 of 127.0.0.1 over a fresh store, with responses validated against the contract. */
export async function startServer(options: TestServerOptions = {}): Promise<TestServer> {
  const now = options.now ?? (() => new Date());
  const store = await openTestStore();
  const platform = await createPlatform(store, { now });
  const deps: AppDeps = {
    config: { version: "0.0.0-test" },
    logger: createLogger("silent"),
    now,
    platform,
    validateResponses: true,
    ...options.deps,
    metrics: options.deps?.metrics ?? new ServiceMetrics(),
  };
  const served = await serveApp(deps, options);
  return {
    ...served,
    async close() {
      await served.close();
      platform.slots.close();
      await store.close();
    },
  };
}

/**
 * Serves the app of `deps` on port 0 of 127.0.0.1 with one fresh account of `plan`, for test
 * servers that build their own deps. Its `close` stops listening; the store stays the caller's.
 */
export async function serveApp(
  deps: AppDeps,
  options: { plan?: PlanName; credits?: number | null; name?: string } = {},
): Promise<TestServer> {
  const { account, key } = await deps.platform.accounts.create({
    plan: options.plan ?? "pro",
    ...(options.credits === undefined ? {} : { credits: options.credits }),
    name: options.name ?? "test",
  });
  const server = await listenOnLoopback(createApp(deps));
  const { baseUrl } = server;
  const clientFor = (apiKey: string) => createClient({ baseUrl, apiKey });
  return {
    baseUrl,
    client: clientFor(key.key),
    account,
    key,
    deps,
    platform: deps.platform,
    clientFor,
    close: () => server.close(),
  };
}
