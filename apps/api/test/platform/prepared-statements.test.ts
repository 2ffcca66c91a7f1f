import { sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Store } from "../../src/store/database.ts";
import { executePrepared, preparedNameOf, preparedQueryOf } from "../../src/store/prepared.ts";
import { storedTranscripts } from "../../src/store/schema.ts";
import { openTestStore, testEngine } from "../support/store.ts";

let store: Store;
beforeAll(async () => {
  store = await openTestStore();
});
afterAll(() => store.close());

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

  it.runIf(testEngine === "postgres")(
    "are parsed once per connection and then only executed again, on PostgreSQL",
    async () => {
      const statement = sql`select ${5}::int + 1 as next`;
      const executions = await store.db.transaction(async (tx) => {
        await executePrepared(tx, statement);
        await executePrepared(tx, sql`select ${6}::int + 1 as next`);
        return executePrepared<{ name: string; executions: number }>(
          tx,
          sql`select name, (generic_plans + custom_plans)::int as executions
                from pg_prepared_statements where statement = ${"select $1::int + 1 as next"}`,
        );
      });
      expect(executions).toEqual([{ name: preparedNameOf("select $1::int + 1 as next"), executions: 2 }]);
    },
  );
});
