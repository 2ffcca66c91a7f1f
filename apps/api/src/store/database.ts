import { mkdirSync } from "node:fs";
import { PGlite, type QueryOptions } from "@electric-sql/pglite";
import { DrizzleQueryError, type SQL, sql } from "drizzle-orm";
import { drizzle as drizzlePostgres } from "drizzle-orm/node-postgres";
import { migrate as migratePostgres } from "drizzle-orm/node-postgres/migrator";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import pg from "pg";
import { packagePath } from "../package-files.ts";
import { isPreparedValue, type PreparedValue, preparedStatementsOn } from "./pglite-prepared.ts";
import { preparedNameOfRunText } from "./prepared-names.ts";
import * as schema from "./schema.ts";

/** The Drizzle database, the same type on PGlite and on PostgreSQL. */
export type Database = PgDatabase<PgQueryResultHKT, typeof schema>;

/** The database or an open transaction on it: work written inside a transaction commits with it. */
export type DatabaseOrTransaction = Database | Parameters<Parameters<Database["transaction"]>[0]>[0];

/** Which engine holds the data. */
export type Engine = "embedded" | "postgres";

/** An open database, migrated and ready. */
export interface Store {
  db: Database;
  engine: Engine;
  /** Runs one statement and answers its rows. */
  query<Row>(statement: SQL): Promise<Row[]>;
  /**
   * Runs raw SQL for libraries that bring their own (the pg-boss queue): parameterised when
   * `values` are given, otherwise possibly several statements. Never call it inside a
   * `db.transaction` on PGlite: its one session is held by the transaction.
   */
  executeSql(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
  /**
   * Runs `work` while no other process of the deployment runs work under the same `lockId`
   * (a PostgreSQL advisory lock): set-up that libraries do without a lock of their own, such as
   * pg-boss creating its schema, cannot race between processes starting together. PGlite has one
   * process, so there it just runs.
   */
  exclusively<T>(lockId: number, work: () => Promise<T>): Promise<T>;
  /** The connection pool's figures, on PostgreSQL; the embedded engine has one session and no pool. */
  pool?: () => PoolFigures;
  /**
   * Calls `onPayload` with each notification sent on `channel` (`pg_notify`) by any process of the
   * database, once its transaction commits; answers how to stop listening. A notification sent
   * while the listening connection was being made again is lost: listeners look again on a timer too.
   */
  listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/** Connections of a PostgreSQL pool: open, idle, and queries waiting for one. */
export interface PoolFigures {
  total: number;
  idle: number;
  waiting: number;
}

const migrationsFolder = packagePath("src/store/migrations");

/** Serialises migrations of processes starting together on one PostgreSQL. */
const migrationLockId = 7_306_129_466;

/** How an embedded store starts. */
export interface EmbeddedStoreOptions {
  /**
   * A data directory as PGlite's `dumpDataDir` wrote it, to start an in-memory store from instead
   * of an empty cluster: creating a cluster and running every migration costs seconds of CPU,
   * loading a migrated one a tenth of that. Migrations still run, and apply what it lacks.
   */
  initialDataDir?: Blob;
}

/**
 * Opens the embedded PostgreSQL (PGlite) in `dataDir`, or in memory without one. PGlite admits
 * one process: whoever opens a data directory must hold it alone (see `open.ts`).
 */
export async function openEmbeddedStore(dataDir?: string, options: EmbeddedStoreOptions = {}): Promise<Store> {
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  const pglite = options.initialDataDir
    ? await PGlite.create({ ...(dataDir ? { dataDir } : {}), loadDataDir: options.initialDataDir })
    : await PGlite.create(dataDir);
  const client = inTurnsOfTheEventLoop(pglite);
  // Filling each new 16 MB WAL segment with zeros stops PGlite's one session for 250-430 ms in memory
  // (docs/performance.md); without it, a segment takes its space as it is written.
  await client.exec("set wal_init_zero = off");
  const db = drizzlePglite(client, { schema });
  await migratePglite(db, { migrationsFolder });
  const executeSql = async (text: string, values?: unknown[]) => {
    if (values?.length) return client.query(text, values);
    const results = await client.exec(text);
    return { rows: results.flatMap((result) => result.rows) };
  };
  const store = storeOf(
    db as unknown as Database,
    "embedded",
    executeSql,
    (_lockId, work) => work(),
    () => client.close(),
  );
  store.listen = async (channel, onPayload) => {
    const stop = await client.listen(channel, onPayload);
    return async () => {
      await stop().catch(() => undefined);
    };
  };
  return store;
}

/** PGlite's entry points that run statements: `transaction` runs its own as one turn. */
const statementMethods = new Set<PropertyKey>(["query", "exec", "transaction"]);

/**
 * PGlite runs each statement synchronously on the event loop and hands its session to the next
 * waiting statement in a microtask, so statements queued under load run back to back without the
 * loop polling its sockets in between: the server then accepts one new connection per queue
 * drained, seconds apart (docs/performance.md, the store hit's PGlite tail). Here each statement,
 * or transaction, waits for a turn of its own (`setImmediate`, after the poll phase), in the order
 * they were asked. A hot statement's text (`executePrepared`) runs as a prepared statement of the
 * session (`preparedStatementsOn`), in its turn too.
 */
function inTurnsOfTheEventLoop(client: PGlite): PGlite {
  let previous: Promise<unknown> = Promise.resolve();
  const inTurn = <T>(run: () => Promise<T>): Promise<T> => {
    const turn = previous.then(nextTurnOfTheEventLoop).then(run);
    previous = turn.catch(() => undefined);
    return turn;
  };
  const prepared = preparedStatementsOn(client, inTurn);
  const query = client.query.bind(client);
  const queryOrPrepared = (text: string, values?: unknown[], options?: QueryOptions) => {
    const name = preparedNameOfRunText(text);
    if (name && (values ?? []).every(isPreparedValue) && isPlainQuery(options)) {
      return prepared(name, text, (values ?? []) as PreparedValue[], options?.parsers);
    }
    return inTurn(() => query(text, values, options));
  };
  // Bound once, not on every access: every statement of the embedded store reads one of these.
  const bound = new Map<PropertyKey, unknown>();
  return new Proxy(client, {
    get(target, property) {
      if (property === "query") return queryOrPrepared;
      // Bound to the client itself: PGlite keeps its state in private fields the proxy does not have.
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      let method = bound.get(property);
      if (method === undefined) {
        const own = value.bind(target) as (...args: unknown[]) => Promise<unknown>;
        method = statementMethods.has(property) ? (...args: unknown[]) => inTurn(() => own(...args)) : own;
        bound.set(property, method);
      }
      return method;
    },
  });
}

/** Options of a query its prepared statement answers the same: objects for rows, and parsers at most. */
function isPlainQuery(options: QueryOptions | undefined): boolean {
  return (
    options === undefined ||
    Object.keys(options).every(
      (option) => option === "parsers" || (option === "rowMode" && options.rowMode === "object"),
    )
  );
}

function nextTurnOfTheEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Connections one process opens to PostgreSQL at most (the queue's included): what `max_connections` must allow per process. */
export const defaultPoolSize = 10;

/** What pg and its pool say when a connection is cut or never made, as opposed to a statement that failed. */
const lostConnectionMessages =
  /^(Connection terminated|Client has encountered a connection error|Client was closed and is not queryable|timeout exceeded when trying to connect)/;
/** A query's socket errors when the server refused it, cut it or never answered. */
const lostConnectionCodes = new Set(["ECONNREFUSED", "ECONNRESET", "ECONNABORTED", "EPIPE", "ETIMEDOUT"]);

/**
 * Whether an error means the database could not be reached, not that a statement failed: pg's
 * and its pool's lost connections, a query (drizzle's `DrizzleQueryError`) whose socket failed,
 * or a server that is shutting down or refusing connections (SQLSTATE classes 08 and 57P).
 */
export function isStoreUnreachable(error: unknown): boolean {
  let queried = false;
  for (let current = error; current instanceof Error; current = current.cause) {
    if (current instanceof pg.DatabaseError) return /^(08|57P)/.test(current.code ?? "");
    if (current instanceof DrizzleQueryError) queried = true;
    else if (lostConnectionMessages.test(current.message)) return true;
    else if (queried && lostConnectionCodes.has((current as NodeJS.ErrnoException).code ?? "")) return true;
  }
  return false;
}

/** Whether an error came from the store: a statement that failed, or a database that could not be reached. */
export function isStoreError(error: unknown): boolean {
  for (let current = error; current instanceof Error; current = current.cause) {
    if (current instanceof DrizzleQueryError) return true;
  }
  return isStoreUnreachable(error);
}

export interface PostgresStoreOptions {
  poolSize?: number;
  /** Told when the server closes an idle connection; the pool opens a new one for the next query. */
  onConnectionError?: (error: Error) => void;
}

/** Opens a pool on a real PostgreSQL and migrates it, one process at a time. */
export async function openPostgresStore(connectionString: string, options: PostgresStoreOptions = {}): Promise<Store> {
  // No JIT compilation: it costs 20-40 ms a statement once a plan's estimate passes jit_above_cost,
  // and the API's statements run in milliseconds; a library search whose index branch was never run
  // paid it on every common word (docs/performance.md).
  const pool = new pg.Pool({ connectionString, max: options.poolSize ?? defaultPoolSize, options: "-c jit=off" });
  // Without a listener, an idle connection closed by the server (a restart, a failover) ends the process.
  pool.on("error", (error) => options.onConnectionError?.(error));
  const exclusively = async <T>(lockId: number, work: (client: pg.PoolClient) => Promise<T>): Promise<T> => {
    const holder = await pool.connect();
    try {
      await holder.query("select pg_advisory_lock($1)", [lockId]);
      return await work(holder);
    } finally {
      await holder.query("select pg_advisory_unlock($1)", [lockId]).catch(() => undefined);
      holder.release();
    }
  };
  await exclusively(migrationLockId, (migrator) =>
    migratePostgres(drizzlePostgres(migrator, { schema }), { migrationsFolder }),
  );
  const db = drizzlePostgres(pool, { schema });
  const executeSql = (text: string, values?: unknown[]) => pool.query(text, values);
  const listener = new NotificationListener(connectionString, options.onConnectionError);
  const store = storeOf(db as unknown as Database, "postgres", executeSql, exclusively, async () => {
    await listener.close();
    await pool.end();
  });
  store.pool = () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount });
  store.listen = (channel, onPayload) => listener.listen(channel, onPayload);
  return store;
}

/**
 * One connection of its own per process that `LISTEN`s, opened on the first listener: a pooled
 * connection cannot, since the pool hands it to other queries. A connection that breaks is made
 * again a second later, with every channel listened to again.
 */
class NotificationListener {
  private client: pg.Client | undefined;
  private connecting: Promise<pg.Client> | undefined;
  private readonly handlers = new Map<string, Set<(payload: string) => void>>();
  private closed = false;

  constructor(
    private readonly connectionString: string,
    private readonly onConnectionError?: (error: Error) => void,
  ) {}

  async listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>> {
    if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new TypeError(`${channel} is no channel name`);
    let handlers = this.handlers.get(channel);
    const first = handlers === undefined;
    if (!handlers) {
      handlers = new Set();
      this.handlers.set(channel, handlers);
    }
    handlers.add(onPayload);
    const client = await this.connected();
    if (first) await client.query(`listen ${channel}`);
    return async () => {
      handlers.delete(onPayload);
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    const client = this.client ?? (await this.connecting?.catch(() => undefined));
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private connected(): Promise<pg.Client> {
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= this.connect().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async connect(): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: this.connectionString });
    client.on("notification", (message) => {
      for (const handler of this.handlers.get(message.channel) ?? []) handler(message.payload ?? "");
    });
    client.on("error", (error) => {
      this.onConnectionError?.(error);
      if (this.client === client) this.client = undefined;
      client.end().catch(() => undefined);
      if (!this.closed) setTimeout(() => void this.reconnect(), 1_000).unref();
    });
    await client.connect();
    for (const channel of this.handlers.keys()) await client.query(`listen ${channel}`);
    this.client = client;
    return client;
  }

  private async reconnect(): Promise<void> {
    if (this.closed || this.client || this.handlers.size === 0) return;
    await this.connected().catch(() => {
      if (!this.closed) setTimeout(() => void this.reconnect(), 1_000).unref();
    });
  }
}

function storeOf(
  db: Database,
  engine: Engine,
  executeSql: Store["executeSql"],
  exclusively: Store["exclusively"],
  close: () => Promise<void>,
): Store {
  return {
    db,
    engine,
    executeSql,
    exclusively,
    async query<Row>(statement: SQL) {
      const result = (await db.execute(statement)) as unknown as { rows: Row[] };
      return result.rows;
    },
    listen: () => Promise.reject(new Error(`the ${engine} store has no notifications`)),
    close,
  };
}

/** A cheap round trip, for health checks and admission. */
export async function ping(store: Store): Promise<void> {
  await store.query(sql`select 1`);
}
