import { type DatabaseProxy, startDatabaseProxy } from "@verbatim/testkit/database-proxy";
import { eventually } from "@verbatim/testkit/eventually";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPlatform } from "../../src/assembly/platform.ts";
import type { Platform } from "../../src/services/process-services.ts";
import { isStoreUnreachable, openPostgresStore, type Store } from "../../src/store/database.ts";
import { createPostgresDatabase, type PostgresDatabase } from "../support/store.ts";
import { ledgerOf } from "./helpers.ts";

const operation = "POST /api/v2/transcripts/video";

// A charge is one statement that commits on its own. When the connection drops while it runs, the
// server may commit it although the request fails as if nothing were charged (a batch row, a 503).
describe.runIf(process.env.DATABASE_URL)("a charge whose answer the connection lost (PostgreSQL)", () => {
  let database: PostgresDatabase;
  let proxy: DatabaseProxy;
  let proxied: Store;
  let direct: Store;
  let platform: Platform;

  beforeAll(async () => {
    database = await createPostgresDatabase(process.env.DATABASE_URL as string);
    proxy = await startDatabaseProxy(database.url);
    proxied = await openPostgresStore(proxy.url, { poolSize: 2 });
    direct = await openPostgresStore(database.url, { poolSize: 2 });
    platform = await createPlatform(proxied, { now: () => new Date() });
  });
  afterAll(async () => {
    await proxied?.close();
    await direct?.close();
    await proxy?.close();
    await database?.drop();
  });

  const openAccount = async (credits: number) =>
    (await platform.accounts.create({ plan: "free", credits, name: "lost charges" })).account.id;
  const balanceOf = async (accountId: string) =>
    Number(
      (await direct.query<{ credits: number }>(sql`select credits from accounts where id = ${accountId}`))[0]?.credits,
    );
  const rowsOf = async (accountId: string, requestId: string) =>
    (await ledgerOf(direct, accountId)).filter((row) => row.request_id === requestId);

  it("is reversed once the store answers again, so the ledger, the balance and the usage say nothing was charged", async () => {
    const accountId = await openAccount(10);
    // The account's row is held, so the charge waits on the server while its connection is cut;
    // released, it commits there with nobody to answer.
    let release = () => {};
    let held = () => {};
    const lockHeld = new Promise<void>((resolve) => {
      held = resolve;
    });
    const holder = direct.db.transaction(async (transaction) => {
      await transaction.execute(sql`select 1 from accounts where id = ${accountId} for update`);
      held();
      await new Promise<void>((resolve) => {
        release = resolve;
      });
    });
    await lockHeld;
    const charging = platform.credits.charge({ accountId, credits: 3, operation, requestId: "req_lost" }).then(
      () => "charged",
      (error: unknown) => error,
    );
    await eventually(
      async () =>
        (
          await direct.query(
            sql`select 1 from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
          )
        ).length > 0,
    );
    const outage = proxy.outage(1_500);
    const failure = await charging;
    expect(isStoreUnreachable(failure), String(failure)).toBe(true);
    release();
    await holder;
    await outage;

    const rows = await eventually(async () => {
      const current = await rowsOf(accountId, "req_lost");
      return current.length === 2 ? current : undefined;
    });
    expect(
      rows.map(({ kind, delta, balance_after, operation }) => ({ kind, delta, balance_after, operation })),
    ).toEqual([
      { kind: "charge", delta: -3, balance_after: 7, operation },
      { kind: "reversal", delta: 3, balance_after: 10, operation },
    ]);
    expect(await balanceOf(accountId)).toBe(10);
    const usage = await platform.usage.report(accountId, 10);
    expect(usage.credits_spent).toBe(0);
    expect(usage.endpoints).toEqual([{ endpoint: operation, credits_spent: 0, requests: 0 }]);
  });

  it("is not reversed when it never reached the server, and a later charge stands", async () => {
    const accountId = await openAccount(10);
    const outage = proxy.outage(1_500);
    const failure = await platform.credits.charge({ accountId, credits: 2, operation, requestId: "req_refused" }).then(
      () => "charged",
      (error: unknown) => error,
    );
    expect(isStoreUnreachable(failure), String(failure)).toBe(true);
    await outage;
    expect(await platform.credits.charge({ accountId, credits: 1, operation, requestId: "req_after" })).toBe(9);
    // The reversal is retried every second while the store is away: give it two tries after the outage.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(await rowsOf(accountId, "req_refused")).toEqual([]);
    expect((await rowsOf(accountId, "req_after")).map((row) => row.kind)).toEqual(["charge"]);
    expect(await balanceOf(accountId)).toBe(9);
  });
});
