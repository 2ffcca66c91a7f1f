import { get } from "node:http";
import { createClient, type VerbatimClient } from "@verbatim/sdk";
import { listenOnLoopback } from "@verbatim/testkit/listen";
import { createApp } from "../../src/app.ts";
import { createPlatform } from "../../src/assembly/platform.ts";
import {
  buildServices,
  type ProcessServices,
  type ServiceAdapters,
  type ServiceSettings,
} from "../../src/assembly/services.ts";
import type { AppDeps } from "../../src/http/app-deps.ts";
import { createLogger } from "../../src/logger.ts";
import { ServiceMetrics } from "../../src/metrics.ts";
import type { IssuedKey } from "../../src/services/accounts/account-keys.ts";
import type { AccountView } from "../../src/services/accounts/accounts.ts";
import type { PlanName } from "../../src/services/accounts/plans.ts";
import type { Platform } from "../../src/services/process-services.ts";
import type { Store } from "../../src/store/database.ts";
import { emptyStore, openTestStore } from "./store.ts";

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
  deps?: Partial<Omit<AppDeps, "platform" | "services">>;
  /** The adapters the server's services are built from (`buildServices`); without them, only the account operations are live. */
  adapters?: ServiceAdapters;
  /**
   * A store the server empties and works on, and leaves open on `close`: tests of a file that
   * each start a server share one (see `emptyStore`). Without it, the server opens its own.
   */
  store?: Store;
}

/** Starts `createApp` on port 0 of 127.0.0.1 over a fresh store (or `store`, emptied), with responses validated against the contract. */
export async function startServer(options: TestServerOptions = {}): Promise<TestServer> {
  const now = options.now ?? (() => new Date());
  const store = options.store ?? (await openTestStore());
  if (options.store) await emptyStore(options.store);
  const platform = await createPlatform(store, { now });
  const logger = options.deps?.logger ?? createLogger("silent");
  const deps: AppDeps = {
    config: { version: "0.0.0-test" },
    logger,
    now,
    platform,
    validateResponses: true,
    ...options.deps,
    metrics: options.deps?.metrics ?? new ServiceMetrics(),
    services: buildServices(options.adapters ?? {}, { platform, now, logger, allowPrivateTargets: false }),
  };
  const served = await serveApp(deps, options);
  return {
    ...served,
    async close() {
      await served.close();
      platform.slots.close();
      if (!options.store) await store.close();
    },
  };
}

/** The app's deps for a test: its version, a silent logger unless another is given, fresh metrics, responses validated against the contract. */
export function testAppDeps(
  settings: Pick<ServiceSettings, "platform" | "now" | "logger">,
  services: ProcessServices,
): AppDeps {
  const { platform, now, logger } = settings;
  return {
    config: { version: "0.0.0-test" },
    logger,
    now,
    metrics: new ServiceMetrics(),
    platform,
    services,
    validateResponses: true,
  };
}

/**
 * Where `createApp` mounts an OpenAPI validator. Each reads and compiles its document in the
 * background from `createApp` on: seconds of synchronous work on a loaded machine, during which
 * nothing else in the process runs, neither a fake upstream's answer nor the timeout waiting for it.
 */
const validatedMounts = ["/api/v2", "/api/v1", "/dashboard/api"] as const;

/**
 * Waits until every validator of the app has compiled its document, so that work stalls no test's
 * request: a path no document has is answered 404 by the validator, once it is ready.
 */
async function validatorsReady(baseUrl: string): Promise<void> {
  await Promise.all(
    validatedMounts.map(async (mount) => {
      const { status, body } = await getOnce(`${baseUrl}${mount}/validator-ready`);
      if (status !== 404) throw new Error(`${mount} did not start: ${status} ${body}`);
    }),
  );
}

/** A GET on a connection of its own, closed after the answer: no idle connection is left for a test's request to meet closing. */
function getOnce(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    get(url, { agent: false }, (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => {
        body += chunk;
      });
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
      response.on("error", reject);
    }).on("error", reject);
  });
}

/**
 * Serves the app of `deps` on port 0 of 127.0.0.1 with one fresh account of `plan`, for test
 * servers that build their own deps, once its validators are ready. Its `close` stops listening;
 * the store stays the caller's.
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
  await validatorsReady(baseUrl);
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
