import { and, count, desc, eq, isNull, lt, sql } from "drizzle-orm";
import { ApiError } from "../../errors.ts";
import { newId } from "../../ids.ts";
import type { Database, Store } from "../../store/database.ts";
import { accounts, apiKeys } from "../../store/schema.ts";
import { displayPrefixOf, generateApiKey, hashApiKey } from "./api-keys.ts";
import { type PlanName, plans } from "./plans.ts";

/** An API key as listings show it: never the key itself. */
export interface ApiKeyView {
  id: string;
  account_id: string;
  prefix: string;
  requests_per_minute: number | null;
  created_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
  state: "active" | "revoking" | "revoked";
}

/** A page of an account's keys. */
export interface KeyPage {
  keys: ApiKeyView[];
  /** The last key's id, to ask for the next page with; `null` at the end. */
  nextBefore: string | null;
}

/** A key just created: the only time the key itself is shown. */
export interface IssuedKey extends ApiKeyView {
  key: string;
}

/** An account's API keys: made, listed, limited, rotated and revoked. */
export class AccountKeys {
  constructor(
    private readonly store: Store,
    private readonly now: () => Date,
  ) {}

  /** Makes a key of the account: 400 `invalid_request` when its plan's `maxActiveKeys` are in use. */
  async create(accountId: string, requestsPerMinute: number | null = null): Promise<IssuedKey> {
    return this.store.db.transaction((tx) => this.insert(tx, accountId, requestsPerMinute));
  }

  /** A page of the account's keys, newest first, revoked ones included; `nextBefore` continues it. */
  async list(accountId: string, page: { limit: number; before?: string }): Promise<KeyPage> {
    await this.requireAccount(accountId);
    const rows = await this.store.db
      .select()
      .from(apiKeys)
      .where(
        and(
          eq(apiKeys.accountId, accountId),
          eq(apiKeys.kind, "api"),
          page.before === undefined ? undefined : lt(apiKeys.id, page.before),
        ),
      )
      .orderBy(desc(apiKeys.id))
      .limit(page.limit + 1);
    const keys = rows.slice(0, page.limit).map((row) => this.keyView(row));
    return { keys, nextBefore: rows.length > page.limit ? (keys.at(-1)?.id ?? null) : null };
  }

  /** Every key of the account, newest first: for the operator, page by page. */
  async all(accountId: string): Promise<ApiKeyView[]> {
    const keys: ApiKeyView[] = [];
    let before: string | undefined;
    do {
      const page = await this.list(accountId, { limit: 100, ...(before === undefined ? {} : { before }) });
      keys.push(...page.keys);
      before = page.nextBefore ?? undefined;
    } while (before !== undefined);
    return keys;
  }

  /** Revokes a key, and ends the sessions it opened, from the next request on. With `accountId`, only a key of that account. */
  async revoke(keyId: string, accountId?: string): Promise<ApiKeyView> {
    await this.key(keyId, accountId);
    return this.store.db.transaction((tx) => this.setRevokedAt(tx, keyId, this.now()));
  }

  /**
   * Issues a new key for the same account and revokes the old one, after a grace period if given.
   * The sessions the old key opened end now: a rotation often answers a leak.
   */
  async rotate(
    keyId: string,
    graceSeconds = 0,
    accountId?: string,
  ): Promise<{ issued: IssuedKey; revoked: ApiKeyView }> {
    const old = await this.key(keyId, accountId);
    if (old.revokedAt && old.revokedAt <= this.now()) throw new ApiError("not_found", `Key ${keyId} is revoked.`);
    return this.store.db.transaction(async (tx) => {
      const revoked = await this.setRevokedAt(tx, keyId, new Date(this.now().getTime() + graceSeconds * 1000));
      const issued = await this.insert(tx, old.accountId, old.requestsPerMinute);
      return { issued, revoked };
    });
  }

  /** Sets a requests-per-minute limit on a key, or clears it with `null`. With `accountId`, only a key of that account. */
  async setLimit(keyId: string, requestsPerMinute: number | null, accountId?: string): Promise<ApiKeyView> {
    await this.key(keyId, accountId);
    const [row] = await this.store.db
      .update(apiKeys)
      .set({ requestsPerMinute })
      .where(eq(apiKeys.id, keyId))
      .returning();
    if (!row) throw new ApiError("not_found", `No key ${keyId}.`);
    return this.keyView(row);
  }

  /** An API key (not a dashboard session), of `accountId` when given: another account's key is as unknown as a missing one. */
  private async key(keyId: string, accountId?: string): Promise<typeof apiKeys.$inferSelect> {
    const [row] = await this.store.db
      .select()
      .from(apiKeys)
      .where(and(eq(apiKeys.id, keyId), eq(apiKeys.kind, "api")));
    if (!row || (accountId !== undefined && row.accountId !== accountId)) {
      throw new ApiError("not_found", `No key ${keyId}.`);
    }
    return row;
  }

  /**
   * Inserts a key under the account's lock (in the transaction that creates the account, or its own), so concurrent creations cannot pass the plan's
   * `maxActiveKeys` together.
   */
  async insert(tx: Database, accountId: string, requestsPerMinute: number | null): Promise<IssuedKey> {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`verbatim:keys:${accountId}`}))`);
    const [account] = await tx.select({ plan: accounts.plan }).from(accounts).where(eq(accounts.id, accountId));
    if (!account) throw new ApiError("not_found", `No account ${accountId}.`);
    const { maxActiveKeys } = plans[account.plan as PlanName];
    const [active] = await tx
      .select({ count: count() })
      .from(apiKeys)
      .where(and(eq(apiKeys.accountId, accountId), eq(apiKeys.kind, "api"), isNull(apiKeys.revokedAt)));
    if ((active?.count ?? 0) >= maxActiveKeys) {
      throw new ApiError(
        "invalid_request",
        `The account has ${maxActiveKeys} active keys, the most its plan allows. Revoke or rotate one first.`,
        {
          extra: {
            issues: [{ path: "/", message: `at most ${maxActiveKeys} active keys on the ${account.plan} plan` }],
          },
        },
      );
    }
    const key = generateApiKey();
    const [row] = await tx
      .insert(apiKeys)
      .values({
        id: newId("key"),
        accountId,
        secretHash: hashApiKey(key),
        displayPrefix: displayPrefixOf(key),
        requestsPerMinute,
        createdAt: this.now(),
      })
      .returning();
    if (!row) throw new Error("insert returned nothing");
    return { ...this.keyView(row), key };
  }

  /**
   * Sets when a key stops working, never later than it already does, and ends the sessions it
   * opened now: a session lasts no longer than the key that opened it.
   */
  private async setRevokedAt(tx: Database, keyId: string, revokedAt: Date): Promise<ApiKeyView> {
    const [row] = await tx
      .update(apiKeys)
      .set({ revokedAt: sql`least(${apiKeys.revokedAt}, ${revokedAt.toISOString()}::timestamptz)` })
      .where(and(eq(apiKeys.id, keyId), eq(apiKeys.kind, "api")))
      .returning();
    if (!row) throw new ApiError("not_found", `No key ${keyId}.`);
    await tx.delete(apiKeys).where(and(eq(apiKeys.kind, "session"), eq(apiKeys.openedByKeyId, keyId)));
    return this.keyView(row);
  }

  private keyView(row: typeof apiKeys.$inferSelect): ApiKeyView {
    const now = this.now();
    return {
      id: row.id,
      account_id: row.accountId,
      prefix: row.displayPrefix,
      requests_per_minute: row.requestsPerMinute,
      created_at: row.createdAt.toISOString(),
      revoked_at: row.revokedAt?.toISOString() ?? null,
      last_used_at: row.lastUsedAt?.toISOString() ?? null,
      state: row.revokedAt === null ? "active" : row.revokedAt > now ? "revoking" : "revoked",
    };
  }

  private async requireAccount(accountId: string): Promise<void> {
    const [row] = await this.store.db.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, accountId));
    if (!row) throw new ApiError("not_found", `No account ${accountId}.`);
  }
}
