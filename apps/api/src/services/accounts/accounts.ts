import { randomBytes } from "node:crypto";
import { asc, eq, sql } from "drizzle-orm";
import { ApiError } from "../../errors.ts";
import { newId } from "../../ids.ts";
import type { Store } from "../../store/database.ts";
import { accounts, plans as planRows } from "../../store/schema.ts";
import { AccountKeys, type IssuedKey } from "./account-keys.ts";
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

export interface CreateAccountInput {
  plan: PlanName;
  /** The opening balance; default the plan's monthly credits. `null` makes the balance unlimited. */
  credits?: number | null;
  name?: string | null;
}

/** Accounts, their plans, balances and webhook secrets, and their keys (`keys`): what the operator CLI and the dashboard manage. */
export class Accounts {
  /** The accounts' API keys. */
  readonly keys: AccountKeys;

  constructor(
    private readonly store: Store,
    private readonly now: () => Date,
  ) {
    this.keys = new AccountKeys(store, now);
  }

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
    const key = await this.keys.create(id);
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
