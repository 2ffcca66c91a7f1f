import { readFileSync } from "node:fs";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPostgresStore, type Store } from "../../src/store/database.ts";
import { openTestStore, testEngine } from "../support/store.ts";
import { createPostgresDatabase, databaseUrl, type PostgresDatabase, times } from "./helpers.ts";

const journal = JSON.parse(
  readFileSync(new URL("../../src/store/migrations/meta/_journal.json", import.meta.url), "utf8"),
) as { entries: Array<{ tag: string; when: number }> };

interface MigrationRow {
  hash: string;
  created_at: string;
}

const migrationsOf = (store: Store) =>
  store.query<MigrationRow>(
    sql`select hash, created_at::text as created_at from drizzle.__drizzle_migrations order by id`,
  );

describe("the journal", () => {
  // drizzle's migrator runs only the migrations dated after the last one a store ran, so one
  // dated before it (a branch's, numbered on merge) would never run on a store already past it.
  it("lists 0000 onwards in order, each dated after the one before", () => {
    expect(journal.entries.map((entry) => entry.tag.slice(0, 4))).toEqual(
      journal.entries.map((_, index) => String(index).padStart(4, "0")),
    );
    for (const [index, entry] of journal.entries.entries()) {
      if (index > 0) expect(entry.when, entry.tag).toBeGreaterThan(journal.entries[index - 1]?.when ?? 0);
    }
  });
});

describe(`a fresh store holds each migration once (${testEngine})`, () => {
  let store: Store;
  beforeAll(async () => {
    store = await openTestStore();
  });
  afterAll(() => store.close());

  it("records every migration of the journal exactly once, in order", async () => {
    const rows = await migrationsOf(store);
    expect(rows.map((row) => Number(row.created_at))).toEqual(journal.entries.map((entry) => entry.when));
    expect(new Set(rows.map((row) => row.hash)).size).toBe(journal.entries.length);
  });

  it("installs the platform's SQL functions", async () => {
    const rows = await store.query<{ proname: string }>(
      sql`select proname from pg_proc where proname like 'verbatim_%' order by proname`,
    );
    expect(rows.map((row) => row.proname)).toEqual([
      "verbatim_acquire_slot",
      "verbatim_admit_more",
      "verbatim_authenticate",
      "verbatim_window_add",
      "verbatim_window_admit",
      "verbatim_window_frees",
      "verbatim_window_use",
    ]);
  });
});

describe.runIf(databaseUrl)("processes starting together on one PostgreSQL migrate it once", () => {
  let database: PostgresDatabase;
  const stores: Store[] = [];

  beforeAll(async () => {
    database = await createPostgresDatabase(databaseUrl as string);
  });
  afterAll(async () => {
    await Promise.all(stores.map((store) => store.close()));
    await database?.drop();
  });

  it("opens four stores at once on a fresh database and a fifth afterwards, leaving one copy of each migration", async () => {
    const opened = await Promise.allSettled(times(4).map(() => openPostgresStore(database.url, { poolSize: 2 })));
    for (const result of opened) if (result.status === "fulfilled") stores.push(result.value);
    expect(opened.filter((result) => result.status === "rejected").map((result) => String(result.reason))).toEqual([]);

    const later = await openPostgresStore(database.url, { poolSize: 2 });
    stores.push(later);

    const rows = await migrationsOf(later);
    expect(rows).toHaveLength(journal.entries.length);
    expect(rows.map((row) => Number(row.created_at))).toEqual(journal.entries.map((entry) => entry.when));
    for (const store of stores) expect(await store.query(sql`select count(*) from accounts`)).toHaveLength(1);
  });
});
