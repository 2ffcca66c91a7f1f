import { sql } from "drizzle-orm";
import { ApiError } from "../../errors.ts";
import type { DatabaseOrTransaction, Store } from "../../store/database.ts";
import { type Debit, debitSteps } from "../../store/statements/debit.ts";

/** What a charge records in the ledger. */
export interface ChargeRequest {
  accountId: string;
  credits: number;
  /** The operation charged, as `METHOD /path`. */
  operation: string;
  requestId: string;
  /**
   * Once aborted, the charge is refused before it is made (the abort's reason is thrown): a batch
   * row answered as timed out, or whose client left, is never charged afterwards.
   */
  signal?: AbortSignal;
  /** The transaction the charge commits in with the request's answer; without one it commits on its own. */
  settlement?: ChargeSettlement;
}

/**
 * A transaction a charge runs in and that commits later, with the answer the charge pays for (the
 * stored answer of a request sent with an Idempotency-Key): a process that dies between the
 * charge and the answer commits neither.
 */
export interface ChargeSettlement {
  /**
   * Runs `statement` in the settlement's transaction. When `charged` says it charged, the
   * transaction stays open until the answer commits with it; otherwise it commits at once.
   */
  run<T>(statement: (db: DatabaseOrTransaction) => Promise<T>, charged: (result: T) => boolean): Promise<T>;
  /** The transaction a charge left open: what the request records before it answers is written in it. */
  readonly transaction: DatabaseOrTransaction | undefined;
  /** Runs `action` once the charge has committed, or at once when no charge waits for the answer. */
  afterCommit(action: () => void): void;
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
   * (`db`), the charge commits or rolls back with it: a job's completion charges exactly once; given
   * a settlement, it commits with the request's answer.
   */
  async charge(request: ChargeRequest, db: DatabaseOrTransaction = this.store.db): Promise<number | null> {
    requireWholeCredits(request.credits);
    request.signal?.throwIfAborted();
    if (request.credits === 0) return this.balance(request.accountId, request.settlement?.transaction ?? db);
    const debit = async (on: DatabaseOrTransaction) => {
      const [row] = rowsOf<{ balance_after: number | null }>(
        await on.execute(sql`with ${debitSteps(this.debitOf(request), sql`true`)} select balance_after from charged`),
      );
      if (!row) return this.refuse(request, on);
      return row.balance_after === null ? null : Number(row.balance_after);
    };
    return request.settlement ? request.settlement.run(debit, () => true) : debit(db);
  }

  /**
   * Runs `statement`, which charges as `debit` says among what else it does (a store hit reads,
   * charges and records in one statement: `deliverStored`). Answers its result, `null` when it
   * found nothing to charge for; refuses with 402 when it found something but the balance could not
   * cover the charge, which the statement then made nothing of. Given a settlement, the statement
   * runs in its transaction and commits with the request's answer.
   */
  async chargeWithin<Result extends { charged: boolean }>(
    request: ChargeRequest,
    statement: (db: DatabaseOrTransaction, debit: Debit) => Promise<Result | null>,
  ): Promise<Result | null> {
    requireWholeCredits(request.credits);
    if (request.credits === 0) throw new TypeError("a charge within a statement is at least 1 credit");
    request.signal?.throwIfAborted();
    const debit = this.debitOf(request);
    const run = async (db: DatabaseOrTransaction) => {
      const result = await statement(db, debit);
      if (result && !result.charged) return this.refuse(request, db);
      return result;
    };
    return request.settlement ? request.settlement.run(run, (result) => result !== null) : run(this.store.db);
  }

  private debitOf(request: ChargeRequest): Debit {
    return {
      accountId: request.accountId,
      credits: request.credits,
      operation: request.operation,
      requestId: request.requestId,
      at: this.now(),
    };
  }

  /** The 402 of a charge the balance could not cover. */
  private async refuse(request: ChargeRequest, db: DatabaseOrTransaction): Promise<never> {
    const balance = await this.balance(request.accountId, db);
    this.requireAtLeast(balance, request.credits);
    throw new Error(`charge of ${request.accountId} failed with a sufficient balance`);
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

function requireWholeCredits(credits: number): void {
  if (!Number.isInteger(credits) || credits < 0)
    throw new TypeError(`a charge is a whole number of credits, not ${credits}`);
}

/** The rows of `execute`, which answers a driver result whose type Drizzle leaves open. */
function rowsOf<Row>(result: unknown): Row[] {
  return (result as { rows: Row[] }).rows;
}

/** The usage block for a call that charged `creditsSpent` and left `balance`. */
export function usageBlock(creditsSpent: number, balance: number | null, bytes = 0): UsageBlock {
  return { credits_spent: creditsSpent, balance, bytes };
}
