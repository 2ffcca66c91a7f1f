// The child side of bench/protocol.ts, shared by the child entries (bench/target-server.ts,
// bench/youtube-target-server.ts): serves the target one of them builds on a loopback port, apart
// from the load generator's event loop, and counts requests, database statements and CPU when the
// parent asks.
import { createServer, type RequestListener } from "node:http";
import type { AddressInfo } from "node:net";
import { type SQL, sql } from "drizzle-orm";
import express, { type Express, type RequestHandler } from "express";
import pg from "pg";
import { createApp } from "../src/app.ts";
import { createPlatform } from "../src/assembly/platform.ts";
import { buildServices } from "../src/assembly/services.ts";
import { createLogger } from "../src/logger.ts";
import { ServiceMetrics } from "../src/metrics.ts";
import { defaultPoolSize, openEmbeddedStore, openPostgresStore, type Store } from "../src/store/database.ts";
import { BenchCounting } from "./counting.ts";
import type { ChildMessage, ParentMessage, TargetName } from "./protocol.ts";

/** What a child entry builds from its spec. */
export interface Target {
  handler: RequestListener;
  apiKeys: string[];
  /** Admitted requests the sliding windows hold, sent with the counts; `null` where not measured. */
  windowRows(): Promise<number | null>;
  close(): Promise<void>;
}

/** The floor the operation is compared with: a bare Express route, mounted by `route`, answering `body`. */
export function bareTarget(body: unknown, route: (app: Express, answer: RequestHandler) => void): Target {
  const app = express();
  app.disable("x-powered-by");
  const answer = body ?? {};
  route(app, (_req, res) => {
    res.json(answer);
  });
  return { handler: app, apiKeys: [], windowRows: async () => null, close: async () => undefined };
}

/**
 * The floor of a charged answer: a bare Express route, mounted by `route`, that charges 1 credit on
 * PostgreSQL through node-postgres in one statement (the balance debited and the ledger appended,
 * as a store hit's charge is) and answers `body`, already serialised. Charges the accounts the
 * API target created in the same database, one per API key seen, as the API charges each key's own.
 */
export async function durableChargeTarget(
  databaseUrl: string,
  body: string,
  route: (app: Express, answer: RequestHandler) => void,
): Promise<Target> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: defaultPoolSize });
  const { rows } = await pool.query<{ id: string }>("select id from accounts order by id");
  if (rows.length === 0) throw new Error("the durable-charge target needs the API target's accounts in its database");
  const accountOfKey = new Map<string, string>();
  let requests = 0;
  const app = express();
  app.disable("x-powered-by");
  route(app, (req, res, next) => {
    const key = req.get("authorization") ?? "";
    let accountId = accountOfKey.get(key);
    if (accountId === undefined) {
      accountId = rows[accountOfKey.size % rows.length]?.id ?? "";
      accountOfKey.set(key, accountId);
    }
    requests += 1;
    pool
      .query<{ charges: number }>(
        `with debited as (
           update accounts set credits = credits - 1 where id = $1 and (credits is null or credits >= 1)
           returning id, credits
         ),
         charged as (
           insert into credit_ledger (account_id, delta, balance_after, kind, operation, request_id, created_at)
           select id, -1, credits, 'charge', 'POST /transcripts/video', $2, now() from debited
           returning balance_after
         )
         select count(*)::int as charges from charged`,
        [accountId, `req_floor_${requests}`],
      )
      .then(({ rows: [charged] }) => {
        if (charged?.charges !== 1) throw new Error(`the floor's charge of ${accountId} charged nothing`);
        res.status(200).type("json").send(body);
      })
      .catch(next);
  });
  return { handler: app, apiKeys: [], windowRows: async () => null, close: () => pool.end() };
}

export interface ApiTargetOptions {
  /** Accounts to create on the scale plan, one key each. */
  accounts: number;
  /** Each account's opening balance: the plan's monthly credits unless given; `null` is unlimited. */
  credits?: number | null;
  /** The benchmark-only plan setting, run on the throwaway database once the accounts exist. */
  planSetting: SQL;
  /** Sends the sliding windows' admitted requests with the counts. */
  countWindowRows?: boolean;
}

/** The real API on a fresh store: PostgreSQL at the spec's `databaseUrl` (the `postgres` target) or PGlite. */
export async function apiTarget(
  spec: { name: TargetName; databaseUrl?: string },
  options: ApiTargetOptions,
): Promise<Target> {
  if (spec.name === "postgres" && !spec.databaseUrl) throw new Error("the postgres target needs a database URL");
  const store = spec.databaseUrl ? await openPostgresStore(spec.databaseUrl) : await openEmbeddedStore();
  const now = () => new Date();
  const platform = await createPlatform(store, { now });
  const accounts = await Promise.all(
    Array.from({ length: options.accounts }, (_, index) =>
      platform.accounts.create({ plan: "scale", credits: options.credits, name: `bench ${index}` }),
    ),
  );
  await store.query(options.planSetting);
  const logger = createLogger(process.env.VERBATIM_LOG_LEVEL ?? "error");
  const app = createApp({
    metrics: new ServiceMetrics(),
    config: { version: "0.0.0-bench" },
    logger,
    now,
    platform,
    services: buildServices({}, { platform, now, logger, allowPrivateTargets: false }),
  });
  return {
    handler: app,
    apiKeys: accounts.map(({ key }) => key.key),
    windowRows: options.countWindowRows ? () => windowRows(store) : async () => null,
    async close() {
      platform.slots.close();
      await store.close();
    },
  };
}

async function windowRows(store: Store): Promise<number | null> {
  const [row] = await store.query<{ n: number }>(
    sql`select coalesce(sum(u.used), 0)::int as n
          from rate_windows w, verbatim_window_use(w.counts, w.latest, now()) u`,
  );
  return row?.n ?? null;
}

function send(message: ChildMessage): void {
  process.send?.(message);
}

/** Builds the target from the spec in `argv[2]`, listens, and answers the parent until it closes or disconnects. */
export async function serveTarget<Spec>(build: (spec: Spec) => Promise<Target>): Promise<void> {
  // Before the target opens its store, so every statement is counted.
  const counting = new BenchCounting(send);
  const spec = JSON.parse(process.argv[2] ?? "{}") as Spec;
  let target: Target;
  try {
    target = await build(spec);
  } catch (error) {
    send({ type: "failed", message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    process.exit(1);
  }
  const server = createServer((req, res) => {
    counting.request();
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
    if (message.type === "count-start") counting.start();
    else if (message.type === "count-stop") counting.stop(() => target.windowRows());
    else if (message.type === "close") void shutdown();
  });
  send({ type: "ready", port: (server.address() as AddressInfo).port, apiKeys: target.apiKeys });
}
