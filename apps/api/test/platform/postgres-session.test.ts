import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Store } from "../../src/store/database.ts";
import { openTestStore, testEngine } from "../support/store.ts";

let store: Store;
beforeAll(async () => {
  store = await openTestStore();
});
afterAll(() => store.close());

it.runIf(testEngine === "postgres")("runs the API's statements without JIT compilation, on PostgreSQL", async () => {
  const [setting] = await store.query<{ jit: string }>(sql`select current_setting('jit') as jit`);
  expect(setting?.jit).toBe("off");
});
