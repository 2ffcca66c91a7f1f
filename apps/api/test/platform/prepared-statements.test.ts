import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Store } from "../../src/store/database.ts";
import { executePrepared, preparedNameOf } from "../../src/store/prepared.ts";
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
