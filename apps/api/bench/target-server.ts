// The child process of the benchmark: serves one target on a loopback port, apart from the load
// generator's event loop, and counts requests and database statements when the parent asks.
import { createServer, type RequestListener } from "node:http";
import type { AddressInfo } from "node:net";
import { sql } from "drizzle-orm";
import express from "express";
import { createApp } from "../src/app.ts";
import { createLogger } from "../src/logger.ts";
import { createPlatform } from "../src/platform.ts";
import { openEmbeddedStore, openPostgresStore, type Store } from "../src/store/database.ts";
import { processCpuMs } from "./machine.ts";
import type { ChildMessage, ParentMessage, TargetSpec } from "./protocol.ts";
import { countQueries } from "./query-counter.ts";

interface Target {
  handler: RequestListener;
  apiKeys: string[];
  store: Store | null;
  close(): Promise<void>;
}

const queries = countQueries();

/** Accounts the load is spread over, one key per connection: a service serves many accounts at once. */
const benchAccounts = Number(process.env.VERBATIM_BENCH_ACCOUNTS ?? 50);
let counting = false;
let requests = 0;
let cpuAtStart = 0;

function send(message: ChildMessage): void {
  process.send?.(message);
}

async function buildTarget(spec: TargetSpec): Promise<Target> {
  if (spec.name === "bare") {
    const app = express();
    app.disable("x-powered-by");
    const body = spec.body ?? {};
    app.get("/api/v2/me", (_req, res) => {
      res.json(body);
    });
    return { handler: app, apiKeys: [], store: null, close: async () => undefined };
  }
  if (spec.name === "postgres" && !spec.databaseUrl) throw new Error("the postgres target needs a database URL");
  const store = spec.databaseUrl ? await openPostgresStore(spec.databaseUrl) : await openEmbeddedStore();
  const now = () => new Date();
  const platform = await createPlatform(store, { now });
  const accounts = await Promise.all(
    Array.from({ length: benchAccounts }, (_, index) =>
      platform.accounts.create({ plan: "scale", name: `bench ${index}` }),
    ),
  );
  // Benchmark-only setting: /me counts against the polling allowance (max(2 x rpm, 120) per minute),
  // which a load test exhausts in seconds even spread over many accounts, and a 429 is cheaper than a
  // 200. Plans are constants that `createPlatform` writes into `plans`, so the bench raises the scale
  // row in its own throwaway database afterwards; the full admission path still runs.
  await store.query(
    sql`update plans set polls_per_minute = 100000000, requests_per_minute = 100000000 where name = 'scale'`,
  );
  const app = createApp({
    config: { version: "0.0.0-bench" },
    logger: createLogger(process.env.VERBATIM_LOG_LEVEL ?? "error"),
    now,
    platform,
  });
  return {
    handler: app,
    apiKeys: accounts.map(({ key }) => key.key),
    store,
    async close() {
      platform.slots.close();
      await store.close();
    },
  };
}

async function windowRows(store: Store | null): Promise<number | null> {
  if (!store) return null;
  const [row] = await store.query<{ n: number }>(
    sql`select coalesce(sum(cardinality(hits)), 0)::int as n from rate_windows`,
  );
  return row?.n ?? null;
}

async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2] ?? "{}") as TargetSpec;
  let target: Target;
  try {
    target = await buildTarget(spec);
  } catch (error) {
    send({ type: "failed", message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    process.exit(1);
  }
  const server = createServer((req, res) => {
    if (counting) requests += 1;
    target.handler(req, res);
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const shutdown = async () => {
    server.closeAllConnections();
    server.close();
    await target.close().catch(() => undefined);
    process.exit(0);
  };
  process.on("disconnect", () => void shutdown());
  process.on("message", (message: ParentMessage) => {
    if (message.type === "count-start") {
      requests = 0;
      queries.reset();
      cpuAtStart = processCpuMs();
      counting = true;
      send({ type: "counting" });
    } else if (message.type === "count-stop") {
      counting = false;
      const counted = { requests, queries: queries.count, cpuMs: processCpuMs() - cpuAtStart };
      void windowRows(target.store).then(
        (rows) => send({ type: "counted", ...counted, windowRows: rows }),
        () => send({ type: "counted", ...counted, windowRows: null }),
      );
    } else if (message.type === "close") {
      void shutdown();
    }
  });
  send({ type: "ready", port: (server.address() as AddressInfo).port, apiKeys: target.apiKeys });
}

await main();
