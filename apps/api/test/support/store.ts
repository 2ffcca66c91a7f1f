import { randomBytes } from "node:crypto";
import pg from "pg";
import { openEmbeddedStore, openPostgresStore, type Store } from "../../src/store/database.ts";

/**
 * A fresh, migrated store for one test file: in-memory PGlite by default, or a new database
 * on the PostgreSQL of `DATABASE_URL`, dropped again on close.
 */
export async function openTestStore(): Promise<Store> {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) return openEmbeddedStore();
  const name = `verbatim_test_${randomBytes(6).toString("hex")}`;
  await adminQuery(serverUrl, `create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const store = await openPostgresStore(url.toString());
  return {
    ...store,
    async close() {
      await store.close();
      await adminQuery(serverUrl, `drop database if exists ${name} with (force)`);
    },
  };
}

/** The engine the tests run on, for test names. */
export const testEngine = process.env.DATABASE_URL ? "postgres" : "embedded";

async function adminQuery(serverUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}
