import { fileURLToPath } from "node:url";
import { type NodeProcess, spawnNodeScript } from "@verbatim/testkit/node-process";
import { sql } from "drizzle-orm";
import { expect } from "vitest";
import { createPlatform } from "../../src/assembly/platform.ts";
import { ApiError } from "../../src/errors.ts";
import type { IssuedKey } from "../../src/services/accounts/account-keys.ts";
import type { AccountView } from "../../src/services/accounts/accounts.ts";
import { hashApiKey } from "../../src/services/accounts/api-keys.ts";
import type { Allowance, Authentication } from "../../src/services/accounts/authenticator.ts";
import type { PlanName } from "../../src/services/accounts/plans.ts";
import type { Platform } from "../../src/services/process-services.ts";
import { openPostgresStore, type Store } from "../../src/store/database.ts";
import { apiPackage } from "../support/api-package.ts";
import { openTestStore } from "../support/store.ts";

export { createPostgresDatabase, type PostgresDatabase } from "../support/store.ts";

/** The PostgreSQL server of this run, or `undefined` on the embedded engine. */
export const databaseUrl = process.env.DATABASE_URL;

/** A clock the test moves by hand, so time rules are tested without sleeping. */
export class FakeClock {
  private time: number;

  constructor(start = "2026-03-02T10:00:30.000Z") {
    this.time = Date.parse(start);
  }

  readonly now = (): Date => new Date(this.time);

  set(at: Date | string): Date {
    this.time = typeof at === "string" ? Date.parse(at) : at.getTime();
    return this.now();
  }

  advance(milliseconds: number): Date {
    this.time += milliseconds;
    return this.now();
  }
}

export const second = 1000;
export const minute = 60 * second;
export const hour = 60 * minute;

/** A store shared by one test file, with a platform on a fake clock. */
export interface PlatformFixture {
  store: Store;
  platform: Platform;
  clock: FakeClock;
  /** A new account (and its first key) on the fixture's platform. */
  account(plan?: PlanName, credits?: number | null): Promise<{ account: AccountView; key: IssuedKey }>;
  close(): Promise<void>;
}

/** Opens the test store of the engine this run uses; slot leases are long so that real time never renews them. */
export async function openPlatformFixture(options: { slotLeaseSeconds?: number } = {}): Promise<PlatformFixture> {
  const clock = new FakeClock();
  const store = await openTestStore();
  const platform = await createPlatform(store, {
    now: clock.now,
    slotLeaseSeconds: options.slotLeaseSeconds ?? 600,
  });
  return {
    store,
    platform,
    clock,
    account: (plan = "free", credits) =>
      platform.accounts.create({ plan, ...(credits === undefined ? {} : { credits }), name: "platform test" }),
    async close() {
      platform.slots.close();
      await store.close();
    },
  };
}

/** Authenticates a key as the HTTP layer does: by its hash. */
export function authenticate(
  platform: Platform,
  key: string,
  at: Date,
  allowance: Allowance = "request",
): Promise<Authentication | null> {
  return platform.authenticator.authenticate(hashApiKey(key), allowance, at);
}

/** Authenticates a key that must exist and be valid. */
export async function authenticated(
  platform: Platform,
  key: string,
  at: Date,
  allowance: Allowance = "request",
): Promise<Authentication> {
  const auth = await authenticate(platform, key, at, allowance);
  if (!auth) throw new Error(`key ${key.slice(0, 12)}… was refused as unknown or revoked`);
  return auth;
}

/** How many admitted requests a window (`<allowance>:<account or key id>`) counts at `at`. */
export async function windowSize(store: Store, scope: string, at: Date): Promise<number> {
  const [row] = await store.query<{ size: number }>(
    sql`select u.used as size from rate_windows w, verbatim_window_use(w.counts, w.latest, ${at.toISOString()}::timestamptz) u
         where w.scope = ${scope}`,
  );
  return row?.size ?? 0;
}

/** A ledger row as the tests read it. */
export interface LedgerRow {
  delta: number;
  balance_after: number | null;
  kind: "charge" | "grant";
  operation: string | null;
  request_id: string | null;
  reason: string | null;
}

export async function ledgerOf(store: Store, accountId: string): Promise<LedgerRow[]> {
  const rows = await store.query<LedgerRow>(sql`
    select delta::float8 as delta, balance_after::float8 as balance_after, kind, operation, request_id, reason
      from credit_ledger where account_id = ${accountId} order by id`);
  return rows.map((row) => ({
    ...row,
    delta: Number(row.delta),
    balance_after: row.balance_after === null ? null : Number(row.balance_after),
  }));
}

/** Asserts a rejection is the `ApiError` with this code, and answers it. */
export async function expectApiError(promise: Promise<unknown>, code: string, status: number): Promise<ApiError> {
  const error = await promise.then(
    (value) => {
      throw new Error(`expected ${code}, got a success: ${JSON.stringify(value)}`);
    },
    (reason: unknown) => reason,
  );
  expect(error, String(error)).toBeInstanceOf(ApiError);
  expect(error).toMatchObject({ code, status });
  return error as ApiError;
}

/** Counts settled promises: fulfilled, and rejected per ApiError code (`other` for anything else). */
export function tally(results: PromiseSettledResult<unknown>[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const result of results) {
    const name =
      result.status === "fulfilled" ? "fulfilled" : result.reason instanceof ApiError ? result.reason.code : "other";
    counts[name] = (counts[name] ?? 0) + 1;
  }
  return counts;
}

/** Indices 0..count-1, for bounded parallel runs. */
export function times(count: number): number[] {
  return Array.from({ length: count }, (_, index) => index);
}

/** A migrated store and platform on a real clock, over an existing PostgreSQL database. */
export async function openPostgresPlatform(
  url: string,
  slotLeaseSeconds: number,
): Promise<{ store: Store; platform: Platform }> {
  const store = await openPostgresStore(url);
  const platform = await createPlatform(store, { now: () => new Date(), slotLeaseSeconds });
  return { store, platform };
}

/** A child Node process running one of this folder's `*.child.ts` scripts. */
export type ChildScript = NodeProcess;

export function spawnScript(script: string, args: string[]): ChildScript {
  return spawnNodeScript(fileURLToPath(new URL(script, import.meta.url)), args, { cwd: apiPackage });
}
