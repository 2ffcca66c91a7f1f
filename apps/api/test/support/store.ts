import { randomBytes } from "node:crypto";
import { storeTemplateDump } from "@verbatim/testkit/store-template";
import { sql } from "drizzle-orm";
import pg from "pg";
import { openEmbeddedStore, openPostgresStore, type Store } from "../../src/store/database.ts";

/** The engine the tests run on: PostgreSQL when `DATABASE_URL` names a server, PGlite otherwise. */
export const testEngine = process.env.DATABASE_URL ? "postgres" : "embedded";

/**
 * The cases of a parametrised test that this pass runs: all of them on the embedded pass, the
 * first alone on PostgreSQL. For cases that differ only in what the store never sees (the
 * container a recording comes in, the way a medium fails), the first case walks every statement
 * the others would, and the embedded pass of the same CI run has proved the rest.
 */
export function casesOnThisEngine<Case>(cases: readonly Case[]): Case[] {
  return testEngine === "embedded" ? [...cases] : cases.slice(0, 1);
}

/**
 * A fresh, migrated store for one test file: in-memory PGlite by default, started from the run's
 * migrated template when there is one, or a new database on the PostgreSQL of `DATABASE_URL`,
 * dropped again on close.
 */
export async function openTestStore(): Promise<Store> {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) {
    const initialDataDir = storeTemplateDump();
    return openEmbeddedStore(undefined, initialDataDir ? { initialDataDir } : {});
  }
  const database = await createPostgresDatabase(serverUrl);
  const store = await openPostgresStore(database.url);
  return {
    ...store,
    async close() {
      await store.close();
      await database.drop();
    },
  };
}

/**
 * Empties every table of the public schema, restarting their sequences: the store is as a fresh
 * one is (`createPlatform` puts the plans back). Tests of a file that each want an empty
 * database share one store this way, instead of opening and migrating one each, which takes
 * seconds of CPU per store.
 */
export async function emptyStore(store: Store): Promise<void> {
  const tables = await store.query<{ name: string }>(
    sql`select quote_ident(tablename) as name from pg_tables where schemaname = 'public'`,
  );
  if (tables.length === 0) return;
  await store.executeSql(`truncate table ${tables.map((table) => table.name).join(", ")} restart identity cascade`);
}

/** A fresh database on a PostgreSQL server, for tests that open several stores or processes on it. */
export interface PostgresDatabase {
  url: string;
  drop(): Promise<void>;
}

export async function createPostgresDatabase(serverUrl: string): Promise<PostgresDatabase> {
  const name = `verbatim_test_${randomBytes(6).toString("hex")}`;
  await adminQuery(serverUrl, `create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      // pg's Pool.end() resolves before its connections are gone, and dropping with force would
      // kill them under the pool: wait until they are gone (bounded), then drop.
      const deadline = Date.now() + 5_000;
      while (Date.now() < deadline) {
        const open = await adminQuery(serverUrl, `select 1 from pg_stat_activity where datname = '${name}'`);
        if (open === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await adminQuery(serverUrl, `drop database if exists ${name} with (force)`);
    },
  };
}

/** Runs one statement on the server's maintenance database and answers how many rows it returned. */
async function adminQuery(serverUrl: string, statement: string): Promise<number> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return (await client.query(statement)).rowCount ?? 0;
  } finally {
    await client.end();
  }
}
