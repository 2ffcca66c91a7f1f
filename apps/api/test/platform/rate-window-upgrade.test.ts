import { readFileSync } from "node:fs";
import { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// Migration 0014 turns each rate window's array of hit times into per-second counters. A store
// upgraded while accounts are busy keeps what their windows counted: this applies the migrations
// before it to an embedded database, fills windows the old way, then applies 0014.

const migrations = new URL("../../src/store/migrations/", import.meta.url);
const journal = JSON.parse(readFileSync(new URL("meta/_journal.json", migrations), "utf8")) as {
  entries: Array<{ tag: string }>;
};

async function apply(database: PGlite, tag: string): Promise<void> {
  const text = readFileSync(new URL(`${tag}.sql`, migrations), "utf8");
  for (const statement of text.split("--> statement-breakpoint")) {
    if (statement.trim() !== "") await database.exec(statement);
  }
}

const epochSecond = (iso: string) => Date.parse(iso) / 1000;

describe("migration 0014 carries rate windows over as per-second counters", () => {
  let database: PGlite;

  beforeAll(async () => {
    database = await PGlite.create();
    const tags = journal.entries.map((entry) => entry.tag);
    const upgrade = tags.indexOf("0014_rate_window_counters");
    for (const tag of tags.slice(0, upgrade)) await apply(database, tag);
    await database.exec(`
      insert into rate_windows (scope, hits) values
        ('request:acct_busy', array[
          '2026-03-02T09:59:59.900Z', '2026-03-02T10:00:05.200Z', '2026-03-02T10:00:05.700Z',
          '2026-03-02T10:00:40.000Z', '2026-03-02T10:00:59.999Z'
        ]::timestamptz[]),
        ('poll:acct_idle', '{}');
    `);
    await apply(database, "0014_rate_window_counters");
  }, 60_000);
  afterAll(() => database?.close());

  async function window(scope: string) {
    const { rows } = await database.query<{ counts: number[]; newest_second: string }>(
      "select counts, newest_second::text from rate_windows where scope = $1",
      [scope],
    );
    const [row] = rows;
    if (!row) throw new Error(`no window ${scope}`);
    return { counts: row.counts, newestSecond: Number(row.newest_second) };
  }

  it("counts each hit of the 60 seconds up to the newest in the second it was admitted in", async () => {
    const busy = await window("request:acct_busy");
    const newest = epochSecond("2026-03-02T10:00:59Z");
    expect(busy.newestSecond).toBe(newest);
    expect(busy.counts).toHaveLength(60);
    const countAt = (second: number) => busy.counts[second % 60] ?? -1;
    expect(countAt(epochSecond("2026-03-02T10:00:05Z"))).toBe(2);
    expect(countAt(epochSecond("2026-03-02T10:00:40Z"))).toBe(1);
    expect(countAt(newest)).toBe(1);
    // 09:59:59 is 60 seconds before the newest: that hit had left the window.
    expect(busy.counts.reduce((sum, count) => sum + count, 0)).toBe(4);
  });

  it("answers what a window holds as of a later second through verbatim_window_at", async () => {
    const { rows } = await database.query<{ total: number; oldest: string }>(
      `select (w).total, (w).oldest::text from (
         select verbatim_window_at(counts, newest_second, $1) as w from rate_windows where scope = 'request:acct_busy'
       ) live`,
      [epochSecond("2026-03-02T10:01:06Z")],
    );
    expect(rows[0]).toEqual({ total: 2, oldest: String(epochSecond("2026-03-02T10:00:40Z")) });
  });

  it("gives an empty window 60 zeros", async () => {
    const idle = await window("poll:acct_idle");
    expect(idle).toEqual({ counts: Array.from({ length: 60 }, () => 0), newestSecond: 0 });
  });
});
