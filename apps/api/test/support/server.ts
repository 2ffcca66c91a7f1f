import type { AddressInfo } from "node:net";
import { createClient, type VerbatimClient } from "@verbatim/sdk";
import { createApp } from "../../src/app.ts";
import type { AppDeps } from "../../src/deps.ts";
import { createLogger } from "../../src/logger.ts";

/** A server on a loopback port, built by `createApp`, and an SDK client pointed at it. */
export interface TestServer {
  baseUrl: string;
  client: VerbatimClient;
  deps: AppDeps;
  close(): Promise<void>;
}

/** Dependencies for tests: silent logs, a fixed version, and responses validated against the contract. */
export function testDeps(overrides: Partial<AppDeps> = {}): AppDeps {
  return {
    config: { version: "0.0.0-test" },
    logger: createLogger("silent"),
    now: () => new Date(),
    validateResponses: true,
    ...overrides,
  };
}

/** Starts `createApp(deps)` on port 0 of 127.0.0.1. */
export async function startServer(overrides: Partial<AppDeps> = {}): Promise<TestServer> {
  const deps = testDeps(overrides);
  const app = createApp(deps);
  const server = await new Promise<import("node:http").Server>((resolve) => {
    const listening = app.listen(0, "127.0.0.1", () => resolve(listening));
  });
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;
  return {
    baseUrl,
    client: createClient({ baseUrl, apiKey: "vb_live_test" }),
    deps,
    close: () => new Promise((resolve, reject) => server.close((err) => (err ? reject(err) : resolve()))),
  };
}
