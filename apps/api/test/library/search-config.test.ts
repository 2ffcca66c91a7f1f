import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Store } from "../../src/store/database.ts";
import { searchConfigOf } from "../../src/store/statements/library-entry.ts";
import { openTestStore, testEngine } from "../support/store.ts";

describe(`the text search configuration of a transcript's language (${testEngine})`, () => {
  let store: Store;

  beforeAll(async () => {
    store = await openTestStore();
  });
  afterAll(async () => {
    await store.close();
  });

  async function configOf(language: string | null): Promise<string | undefined> {
    const [row] = await store.query<{ config: string }>(
      sql`select ${searchConfigOf(sql`${language}::text`)} as config`,
    );
    return row?.config;
  }

  it("takes the primary subtag of a BCP-47 language, in any case", async () => {
    expect(await configOf("en")).toBe("english");
    expect(await configOf("pt-BR")).toBe("portuguese");
    expect(await configOf("DE_at")).toBe("german");
    expect(await configOf("nb")).toBe("norwegian");
  });

  it("falls back to simple for a language without a stemmer, or none", async () => {
    expect(await configOf("ja")).toBe("simple");
    expect(await configOf("zh-Hans")).toBe("simple");
    expect(await configOf(null)).toBe("simple");
    expect(await configOf("")).toBe("simple");
  });
});
