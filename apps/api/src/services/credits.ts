import { sql } from "drizzle-orm";
import { ApiError } from "../errors.ts";
import type { Store } from "../store/database.ts";
import type { DatabaseOrTransaction } from "./webhook-events.ts";

/** What a charge records in the ledger. */
export interface ChargeRequest {
  accountId: string;
  credits: number;
  /** The operation charged, as `METHOD /path`. */
  operation: string;
  requestId: string;
}

/** The usage block of a success envelope. */
export interface UsageBlock {
  credits_spent: number;
  balance: number | null;
  bytes: number;
}

/**
 * The one metering service every billed endpoint calls. Balances never go negative: a charge
 * is a single conditional statement that debits and appends to the ledger together, so
 * concurrent charges cannot overspend.
 */
export class Credits {
  constructor(
    private readonly store: Store,
    private readonly now: () => Date,
  ) {}

  /** The balance; `null` for unlimited accounts. */
  async balance(accountId: string, db: DatabaseOrTransaction = this.store.db): Promise<number | null> {
    const [row] = rowsOf<{ credits: number | null }>(
      await db.execute(sql`select credits::float8 as credits from accounts where id = ${accountId}`),
    );
    if (!row) throw new ApiError("not_found", `No account ${accountId}.`);
    return row.credits === null ? null : Number(row.credits);
  }

  /** Refuses with 402 before any work when the balance cannot cover the minimum charge. */
  requireAtLeast(balance: number | null, minimum: number): void {
    if (balance !== null && balance < minimum) {
      throw new ApiError(
        "insufficient_credits",
        `This request costs at least ${minimum} credit${minimum === 1 ? "" : "s"}; the balance is ${balance}. Nothing was charged.`,
      );
    }
  }

  /**
   * Debits the account and records the charge, or refuses with 402 and charges nothing.
   * Answers the balance after the charge (`null` for unlimited accounts). Given a transaction
   * (`db`), the charge commits or rolls back with it: a job's completion charges exactly once.
   */
  async charge(request: ChargeRequest, db: DatabaseOrTransaction = this.store.db): Promise<number | null> {
    if (!Number.isInteger(request.credits) || request.credits < 0) {
      throw new TypeError(`a charge is a whole number of credits, not ${request.credits}`);
    }
    if (request.credits === 0) return this.balance(request.accountId, db);
    const [row] = rowsOf<{ balance_after: number | null }>(
      await db.execute(sql`
      with debited as (
        update accounts set credits = credits - ${request.credits}
         where id = ${request.accountId} and (credits is null or credits >= ${request.credits})
        returning id, credits
      )
      insert into credit_ledger (account_id, delta, balance_after, kind, operation, request_id, created_at)
      select id, ${-request.credits}, credits, 'charge', ${request.operation}, ${request.requestId},
             ${this.now().toISOString()}::timestamptz from debited
      returning balance_after::float8 as balance_after`),
    );
    if (!row) {
      const balance = await this.balance(request.accountId, db);
      this.requireAtLeast(balance, request.credits);
      throw new Error(`charge of ${request.accountId} failed with a sufficient balance`);
    }
    return row.balance_after === null ? null : Number(row.balance_after);
  }

  /** Adds credits to a limited account and records the grant. Answers the new balance. */
  async grant(accountId: string, credits: number, reason: string): Promise<number> {
    if (!Number.isInteger(credits) || credits <= 0) throw new TypeError("a grant is a positive whole number");
    const [row] = await this.store.query<{ balance_after: number }>(sql`
      with credited as (
        update accounts set credits = credits + ${credits}
         where id = ${accountId} and credits is not null
        returning id, credits
      )
      insert into credit_ledger (account_id, delta, balance_after, kind, reason, created_at)
      select id, ${credits}, credits, 'grant', ${reason}, ${this.now().toISOString()}::timestamptz from credited
      returning balance_after::float8 as balance_after`);
    if (!row) throw new ApiError("not_found", `No account ${accountId} with a limited balance.`);
    return Number(row.balance_after);
  }
}

/** The rows of `execute`, which answers a driver result whose type Drizzle leaves open. */
function rowsOf<Row>(result: unknown): Row[] {
  return (result as { rows: Row[] }).rows;
}

/** The usage block for a call that charged `creditsSpent` and left `balance`. */
export function usageBlock(creditsSpent: number, balance: number | null, bytes = 0): UsageBlock {
  return { credits_spent: creditsSpent, balance, bytes };
}
