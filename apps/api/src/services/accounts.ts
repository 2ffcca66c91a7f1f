import { randomBytes } from "node:crypto";
import { and, asc, desc, eq, sql } from "drizzle-orm";
import { ApiError } from "../errors.ts";
import { newId } from "../ids.ts";
import type { Store } from "../store/database.ts";
import { accounts, apiKeys, plans as planRows } from "../store/schema.ts";
import { displayPrefixOf, generateApiKey, hashApiKey } from "./api-keys.ts";
import { nextRefillAt } from "./monthly-refills.ts";
import { type PlanName, plans, pollsPerMinute } from "./plans.ts";

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

  async createKey(accountId: string, requestsPerMinute: number | null = null): Promise<IssuedKey> {
    await this.show(accountId);
    const key = generateApiKey();
    const [row] = await this.store.db
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

  async listKeys(accountId: string): Promise<ApiKeyView[]> {
    await this.show(accountId);
    const rows = await this.store.db
      .select()
      .from(apiKeys)
      .where(and(eq(apiKeys.accountId, accountId), eq(apiKeys.kind, "api")))
      .orderBy(desc(apiKeys.createdAt));
    return rows.map((row) => this.keyView(row));
  }

  /** Revokes a key from the next request on. With `accountId`, only a key of that account. */
  async revokeKey(keyId: string, accountId?: string): Promise<ApiKeyView> {
    await this.key(keyId, accountId);
    return this.setRevokedAt(keyId, this.now());
  }

  /** Issues a new key for the same account and revokes the old one, after a grace period if given. */
  async rotateKey(
    keyId: string,
    graceSeconds = 0,
    accountId?: string,
  ): Promise<{ issued: IssuedKey; revoked: ApiKeyView }> {
    const old = await this.key(keyId, accountId);
    if (old.revokedAt && old.revokedAt <= this.now()) throw new ApiError("not_found", `Key ${keyId} is revoked.`);
    const issued = await this.createKey(old.accountId, old.requestsPerMinute);
    const revoked = await this.setRevokedAt(keyId, new Date(this.now().getTime() + graceSeconds * 1000));
    return { issued, revoked };
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

  private async setRevokedAt(keyId: string, revokedAt: Date): Promise<ApiKeyView> {
    const existing = await this.key(keyId);
    const effective = existing.revokedAt && existing.revokedAt < revokedAt ? existing.revokedAt : revokedAt;
    const [row] = await this.store.db
      .update(apiKeys)
      .set({ revokedAt: effective })
      .where(eq(apiKeys.id, keyId))
      .returning();
    if (!row) throw new ApiError("not_found", `No key ${keyId}.`);
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
