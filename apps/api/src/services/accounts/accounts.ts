import { randomBytes } from "node:crypto";
import { and, asc, count, desc, eq, isNull, lt, sql } from "drizzle-orm";
import { ApiError } from "../../errors.ts";
import { newId } from "../../ids.ts";
import type { Database, Store } from "../../store/database.ts";
import { accounts, apiKeys, plans as planRows } from "../../store/schema.ts";
import { displayPrefixOf, generateApiKey, hashApiKey } from "./api-keys.ts";
import { nextRefillAt } from "./monthly-refills.ts";
import { isPlanName, type PlanName, plans, pollsPerMinute } from "./plans.ts";

/** An account as the operator sees it. */
export interface AccountView {
  id: string;
  name: string | null;
  plan: PlanName;
  credits: number | null;
  created_at: string;
  /** When the plan's monthly credits next refill the balance; `null` for unlimited accounts. */
  next_refill_at: string | null;
}

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

export interface CreateAccountInput {
  plan: PlanName;
  /** The opening balance; default the plan's monthly credits. `null` makes the balance unlimited. */
  credits?: number | null;
  name?: string | null;
}

/** Accounts, their keys and webhook secrets: what the operator CLI and the dashboard manage. */
export class Accounts {
  constructor(
    private readonly store: Store,
    private readonly now: () => Date,
  ) {}

  /** Writes the plan table into the database, where the SQL functions read it. */
  async syncPlans(): Promise<void> {
    for (const plan of Object.values(plans)) {
      const row = {
        requestsPerMinute: plan.requestsPerMinute,
        pollsPerMinute: pollsPerMinute(plan),
        extractionSlots: plan.extractionSlots,
        batchWorkers: plan.batchWorkers,
        maxBatchItems: plan.maxBatchItems,
        monthlyCredits: plan.monthlyCredits,
      };
      await this.store.db
        .insert(planRows)
        .values({ name: plan.name, ...row })
        .onConflictDoUpdate({ target: planRows.name, set: row });
    }
  }

  async create(input: CreateAccountInput): Promise<{ account: AccountView; key: IssuedKey }> {
    const credits = input.credits === undefined ? plans[input.plan].monthlyCredits : input.credits;
    if (credits !== null && (!Number.isInteger(credits) || credits < 0)) {
      throw new ApiError("invalid_request", "credits must be a whole number of at least 0.", {
        extra: { issues: [{ path: "/credits", message: "must be an integer >= 0" }] },
      });
    }
    const id = newId("acct");
    await this.store.db.transaction(async (tx) => {
      await tx.insert(accounts).values({
        id,
        name: input.name ?? null,
        plan: input.plan,
        credits,
        webhookSecret: newWebhookSecret(),
        createdAt: this.now(),
      });
      if (credits !== null && credits > 0) {
        await tx.execute(sql`insert into credit_ledger (account_id, delta, balance_after, kind, reason)
                             values (${id}, ${credits}, ${credits}, 'grant', 'opening balance')`);
      }
    });
    const key = await this.createKey(id);
    return { account: await this.show(id), key };
  }

  async list(): Promise<AccountView[]> {
    const rows = await this.store.db.select().from(accounts).orderBy(asc(accounts.createdAt));
    return rows.map(accountView);
  }

  async show(accountId: string): Promise<AccountView> {
    const [row] = await this.store.db.select().from(accounts).where(eq(accounts.id, accountId));
    if (!row) throw new ApiError("not_found", `No account ${accountId}.`);
    return accountView(row);
  }

  /** The plan the account runs on and its balance (`null` when unlimited): what work done for it is admitted under. */
  async planAndBalance(accountId: string): Promise<{ plan: PlanName; credits: number | null }> {
    const [row] = await this.store.db
      .select({ plan: accounts.plan, credits: accounts.credits })
      .from(accounts)
      .where(eq(accounts.id, accountId));
    if (!row) throw new ApiError("not_found", `No account ${accountId}.`);
    if (!isPlanName(row.plan)) throw new Error(`unknown plan ${row.plan}`);
    return { plan: row.plan, credits: row.credits };
  }

  async webhookSecret(accountId: string): Promise<string> {
    const [row] = await this.store.db
      .select({ secret: accounts.webhookSecret })
      .from(accounts)
      .where(eq(accounts.id, accountId));
    if (!row) throw new ApiError("not_found", `No account ${accountId}.`);
    return row.secret;
  }

  async rotateWebhookSecret(accountId: string): Promise<string> {
    const secret = newWebhookSecret();
    const updated = await this.store.db
      .update(accounts)
      .set({ webhookSecret: secret })
      .where(eq(accounts.id, accountId))
      .returning({ id: accounts.id });
    if (updated.length === 0) throw new ApiError("not_found", `No account ${accountId}.`);
    return secret;
  }

  async setPlan(accountId: string, plan: PlanName): Promise<AccountView> {
    const updated = await this.store.db
      .update(accounts)
      .set({ plan })
      .where(eq(accounts.id, accountId))
      .returning({ id: accounts.id });
    if (updated.length === 0) throw new ApiError("not_found", `No account ${accountId}.`);
    return this.show(accountId);
  }

  /** Makes a key of the account: 400 `invalid_request` when its plan's `maxActiveKeys` are in use. */
  async createKey(accountId: string, requestsPerMinute: number | null = null): Promise<IssuedKey> {
    return this.store.db.transaction((tx) => this.insertKey(tx, accountId, requestsPerMinute));
  }

  /** A page of the account's keys, newest first, revoked ones included; `nextBefore` continues it. */
  async listKeys(accountId: string, page: { limit: number; before?: string }): Promise<KeyPage> {
    await this.show(accountId);
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
  async allKeys(accountId: string): Promise<ApiKeyView[]> {
    const keys: ApiKeyView[] = [];
    let before: string | undefined;
    do {
      const page = await this.listKeys(accountId, { limit: 100, ...(before === undefined ? {} : { before }) });
      keys.push(...page.keys);
      before = page.nextBefore ?? undefined;
    } while (before !== undefined);
    return keys;
  }

  /** Revokes a key, and ends the sessions it opened, from the next request on. With `accountId`, only a key of that account. */
  async revokeKey(keyId: string, accountId?: string): Promise<ApiKeyView> {
    await this.key(keyId, accountId);
    return this.store.db.transaction((tx) => this.setRevokedAt(tx, keyId, this.now()));
  }

  /**
   * Issues a new key for the same account and revokes the old one, after a grace period if given.
   * The sessions the old key opened end now: a rotation often answers a leak.
   */
  async rotateKey(
    keyId: string,
    graceSeconds = 0,
    accountId?: string,
  ): Promise<{ issued: IssuedKey; revoked: ApiKeyView }> {
    const old = await this.key(keyId, accountId);
    if (old.revokedAt && old.revokedAt <= this.now()) throw new ApiError("not_found", `Key ${keyId} is revoked.`);
    return this.store.db.transaction(async (tx) => {
      const revoked = await this.setRevokedAt(tx, keyId, new Date(this.now().getTime() + graceSeconds * 1000));
      const issued = await this.insertKey(tx, old.accountId, old.requestsPerMinute);
      return { issued, revoked };
    });
  }

  /** Sets a requests-per-minute limit on a key, or clears it with `null`. With `accountId`, only a key of that account. */
  async setKeyLimit(keyId: string, requestsPerMinute: number | null, accountId?: string): Promise<ApiKeyView> {
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
   * Inserts a key under the account's lock, so concurrent creations cannot pass the plan's
   * `maxActiveKeys` together.
   */
  private async insertKey(tx: Database, accountId: string, requestsPerMinute: number | null): Promise<IssuedKey> {
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
}

function accountView(row: typeof accounts.$inferSelect): AccountView {
  return {
    id: row.id,
    name: row.name,
    plan: row.plan as PlanName,
    credits: row.credits,
    created_at: row.createdAt.toISOString(),
    next_refill_at: row.credits === null ? null : nextRefillAt(row.createdAt, row.refilledCycles).toISOString(),
  };
}

function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString("base64")}`;
}
