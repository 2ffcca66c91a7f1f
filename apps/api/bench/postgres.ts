import { randomBytes } from "node:crypto";
import pg from "pg";

/** The PostgreSQL server the benchmark creates its database on. */
export function benchServerUrl(env: NodeJS.ProcessEnv = process.env): string {
  return env.VERBATIM_BENCH_DATABASE_URL ?? env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
}

/** A fresh database for one benchmark run, dropped again by `drop`. */
export interface BenchDatabase {
  url: string;
  drop(): Promise<void>;
}

/**
 * Creates an empty database on the server of `serverUrl`; `null` with the reason when the server
 * cannot be reached, so the benchmark skips PostgreSQL instead of failing.
 */
export async function createBenchDatabase(serverUrl: string): Promise<BenchDatabase | { unreachable: string }> {
  const name = `verbatim_bench_${randomBytes(6).toString("hex")}`;
  try {
    await adminQuery(serverUrl, `create database ${name}`);
  } catch (error) {
    return { unreachable: error instanceof Error ? error.message : String(error) };
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => adminQuery(serverUrl, `drop database if exists ${name} with (force)`),
  };
}

/** Settings of the server that move the figures, printed beside them. */
export async function serverSettings(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  await client.connect();
  try {
    const { rows } = await client.query<{ version: string; sync: string; max: string }>(
      "select current_setting('server_version') as version, current_setting('synchronous_commit') as sync, current_setting('max_connections') as max",
    );
    const row = rows[0];
    return row ? `PostgreSQL ${row.version}, synchronous_commit=${row.sync}, max_connections=${row.max}` : "";
  } finally {
    await client.end();
  }
}

async function adminQuery(serverUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 3_000 });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}
