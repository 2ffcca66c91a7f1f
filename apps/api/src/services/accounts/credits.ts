import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { ApiError } from "../../errors.ts";
import { type DatabaseOrTransaction, isStoreUnreachable, type Store } from "../../store/database.ts";
import { executePrepared } from "../../store/prepared.ts";
import { retryUntilReachable } from "../../store/retry-until-reachable.ts";
import { type Debit, debitSteps } from "../../store/statements/debit.ts";

/** How long a charge whose answer the connection lost is looked for, to reverse it, while the store is away. */
const lostChargeReversalMs = 10 * 60_000;

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
    const debit = this.debitOf(request);
    const run = async (on: DatabaseOrTransaction) => {
      const [row] = await executePrepared<{ balance_after: number | null }>(
        on,
        sql`with ${debitSteps(debit, sql`true`)} select balance_after from charged`,
      );
      if (!row) return this.refuse(request, on);
      return row.balance_after === null ? null : Number(row.balance_after);
    };
    if (request.settlement) return request.settlement.run(run, () => true);
    return db === this.store.db ? this.reversedWhenLost(debit, () => run(db)) : run(db);
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
    if (request.settlement) return request.settlement.run(run, (result) => result !== null);
    return this.reversedWhenLost(debit, () => run(this.store.db));
  }

  private debitOf(request: ChargeRequest): Debit {
    return {
      accountId: request.accountId,
      credits: request.credits,
      operation: request.operation,
      requestId: request.requestId,
      key: randomUUID(),
      at: this.now(),
    };
  }

  /**
   * Runs a charge that commits on its own. When the connection is lost while it runs, the database
   * may have committed it with no answer reaching this process, and the request then fails as if
   * nothing were charged: once the store answers again, such a charge is reversed, in the
   * background, so the ledger says what the client was told. A charge inside a transaction or a
   * settlement needs none of this: a lost connection rolls it back.
   */
  private async reversedWhenLost<Result>(debit: Debit, charging: () => Promise<Result>): Promise<Result> {
    try {
      return await charging();
    } catch (error) {
      if (isStoreUnreachable(error)) void retryUntilReachable(() => this.reverse(debit), lostChargeReversalMs);
      throw error;
    }
  }

  /**
   * Reverses the charge `debit` made, if it was made and is not reversed yet. The account's row is
   * locked first: a charge still running on the server holds or waits for that lock, so it has
   * committed or failed before the ledger is read.
   */
  private reverse(debit: Debit): Promise<void> {
    return this.store.db.transaction(async (transaction) => {
      await transaction.execute(sql`select 1 from accounts where id = ${debit.accountId} for update`);
      const kinds = rowsOf<{ kind: string }>(
        await transaction.execute(sql`select kind from credit_ledger where charge_key = ${debit.key}`),
      ).map((row) => row.kind);
      if (!kinds.includes("charge") || kinds.includes("reversal")) return;
      await transaction.execute(sql`
        with credited as (
          update accounts set credits = credits + ${debit.credits} where id = ${debit.accountId} returning id, credits
        )
        insert into credit_ledger (account_id, delta, balance_after, kind, operation, request_id, reason, charge_key, created_at)
        select id, ${debit.credits}, credits, 'reversal', ${debit.operation}, ${debit.requestId},
               'the connection was lost before the request learned of this charge', ${debit.key},
               ${this.now().toISOString()}::timestamptz from credited`);
    });
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
