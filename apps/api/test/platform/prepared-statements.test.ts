import { sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseOrTransaction, Store } from "../../src/store/database.ts";
import { executePrepared, preparedQueryOf } from "../../src/store/prepared.ts";
import { preparedNameOf } from "../../src/store/prepared-names.ts";
import { storedTranscripts } from "../../src/store/schema.ts";
import { openTestStore, testEngine } from "../support/store.ts";

let store: Store;
beforeAll(async () => {
  store = await openTestStore();
});
afterAll(() => store.close());

function rowsOf(result: unknown): unknown[] {
  return Array.isArray(result) ? result : (result as { rows: unknown[] }).rows;
}

const squareOf = (n: number) => sql`select ${n}::int * ${n}::int as square`;

describe("prepared statements", () => {
  it("answer the statement's rows, on the pool and inside a transaction", async () => {
    expect(await executePrepared(store.db, squareOf(3))).toEqual([{ square: 9 }]);
    const inTransaction = await store.db.transaction((tx) => executePrepared(tx, squareOf(4)));
    expect(inTransaction).toEqual([{ square: 16 }]);
  });

  it("name a text by its hash: one name per text, another for another text", () => {
    expect(preparedNameOf("select 1")).toBe(preparedNameOf("select 1"));
    expect(preparedNameOf("select 1")).not.toBe(preparedNameOf("select 2"));
    expect(preparedNameOf("select 1")).toMatch(/^verbatim_[0-9a-f]{24}$/);
  });

  it("build a shape's text once and give each call its own values, as drizzle-orm would build them", () => {
    const dialect = new PgDialect();
    const lookup = (id: number, withTitle: boolean, words?: boolean) =>
      sql`select ${withTitle ? sql`t.title, ${"x"}::text as note` : sql`null as title`}, ${sql.raw(words ? "t.segment_words" : "null")}
            from ${storedTranscripts} t where t.id = ${id} ${words === undefined ? undefined : sql`and ${words}`}`;
    const statements = [
      lookup(1, true),
      lookup(2, false),
      lookup(3, true, true),
      lookup(4, true, false),
      lookup(5, false),
      lookup(6, true),
      lookup(7, true, true),
      lookup(8, true, false),
      sql`select ${sql.placeholder("id")} as id`,
      sql`select ${[1, 2]} as ids`,
      sql`select ${7} as inlined`.inlineParams(),
    ];
    for (const statement of [...statements, ...statements]) {
      const built = dialect.sqlToQuery(statement);
      expect(preparedQueryOf(statement)).toEqual({
        text: built.sql,
        name: preparedNameOf(built.sql),
        params: built.params,
      });
    }
    expect(new Set(statements.map((statement) => preparedQueryOf(statement).text)).size).toBe(7);
  });

  it("are parsed once per session or connection and then only executed again", async () => {
    const runTwice = async (db: DatabaseOrTransaction) => {
      await executePrepared(db, sql`select ${5}::int + 1 as next`);
      await executePrepared(db, sql`select ${6}::int + 1 as next`);
      return db.execute(
        sql`select name, (generic_plans + custom_plans)::int as executions
              from pg_prepared_statements where statement = ${"select $1::int + 1 as next"}`,
      );
    };
    // PGlite's one session runs them outside transactions; PostgreSQL's pool, on one connection, inside one.
    const executions = testEngine === "postgres" ? await store.db.transaction(runTwice) : await runTwice(store.db);
    expect(rowsOf(executions)).toEqual([{ name: preparedNameOf("select $1::int + 1 as next"), executions: 2 }]);
  });

  it("answer the rows drizzle-orm answers, whatever the columns' types", async () => {
    const statement = sql`select ${"a'b"}::text as text, ${7}::int as int, ${2 ** 40}::int8 as big, ${1.5}::float8 as float,
                                 ${"12.30"}::numeric as numeric, ${true}::boolean as yes, ${false} = true as no,
                                 ${"2026-01-02T03:04:05.678Z"}::timestamptz as at, '2026-01-02'::date as day,
                                 '1 hour'::interval as span, ${JSON.stringify({ a: [1, "x"] })}::jsonb as doc,
                                 array['x', null] as list, null::text as nothing, ${null}::text as sent_null,
                                 array[1.5]::numeric[] as numerics, ${"ünï 🎉"} as unicode`;
    expect(await executePrepared(store.db, statement)).toEqual(rowsOf(await store.db.execute(statement)));
  });

  it("fail as drizzle-orm fails, and run again afterwards", async () => {
    const failing = sql`select 1 / ${0}::int as quotient`;
    const divisionByZero = { cause: expect.objectContaining({ message: "division by zero" }) };
    await expect(store.db.execute(failing)).rejects.toMatchObject(divisionByZero);
    await expect(executePrepared(store.db, failing)).rejects.toMatchObject(divisionByZero);
    await expect(executePrepared(store.db, failing)).rejects.toMatchObject(divisionByZero);
    await expect(executePrepared(store.db, sql`select nonsense from ${sql.raw("nowhere")}`)).rejects.toThrow(/nowhere/);
    expect(await executePrepared(store.db, squareOf(5))).toEqual([{ square: 25 }]);
  });

  it("run inside a transaction on its session, and roll back with it", async () => {
    await store.db.execute(sql`create table if not exists prepared_probe (n int)`);
    await expect(
      store.db.transaction(async (tx) => {
        await executePrepared(tx, sql`insert into prepared_probe values (${1}) returning n`);
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    expect(await executePrepared(store.db, sql`select count(*)::int as n from prepared_probe`)).toEqual([{ n: 0 }]);
    await store.db.execute(sql`drop table prepared_probe`);
  });
});
