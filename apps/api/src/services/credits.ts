import { type SQL, sql } from "drizzle-orm";
import { ApiError } from "../errors.ts";
import type { DatabaseOrTransaction, Store } from "../store/database.ts";

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

/**
 * A step another service adds to the statement of a charge for a found row (`chargeForFound`),
 * so what it writes costs no round trip of its own: `<name> as (<statement>)`, a data-modifying
 * statement with `returning`, which may read `found` and `charged`.
 */
export interface ChargeStep {
  name: string;
  statement: SQL;
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
        await on.execute(sql`with ${this.debit(request, sql`true`)} select balance_after from charged`),
      );
      if (!row) return this.refuse(request, on);
      return row.balance_after === null ? null : Number(row.balance_after);
    };
    return request.settlement ? request.settlement.run(debit, () => true) : debit(db);
  }

  /**
   * Reads what `found` selects and charges for it in one statement: a store hit costs one round
   * trip, not a read and then a charge. Nothing is charged when `found` selects no row
   * (`null`); refuses with 402, charging nothing, when the balance cannot cover the charge.
   * `steps` run in the same statement; each answers its first row (or `null`) under its name.
   * Given a settlement, the statement runs in its transaction and commits with the request's answer.
   */
  async chargeForFound<Row extends object>(
    request: ChargeRequest,
    found: SQL,
    steps: readonly ChargeStep[] = [],
  ): Promise<{ row: Row; balance: number | null; steps: Record<string, unknown> } | null> {
    requireWholeCredits(request.credits);
    if (request.credits === 0) throw new TypeError("a charge for a found row is at least 1 credit");
    request.signal?.throwIfAborted();
    const stepStatements = steps.map((step) => sql`, ${sql.identifier(step.name)} as (${step.statement})`);
    const stepAnswers = steps.map(
      (step) =>
        sql`, (select to_jsonb(step_answer.*) from ${sql.identifier(step.name)} step_answer limit 1) as ${sql.identifier(step.name)}`,
    );
    const readAndCharge = async (db: DatabaseOrTransaction) => {
      const [row] = rowsOf<Row & { charged_balance: number | null; charges: number } & Record<string, unknown>>(
        await db.execute(sql`
          with found as (${found}), ${this.debit(request, sql`exists (select 1 from found)`)} ${sql.join(stepStatements)}
          select found.*, (select balance_after from charged) as charged_balance,
                 (select count(*) from charged)::int as charges ${sql.join(stepAnswers)}
            from found`),
      );
      if (!row) return null;
      const { charged_balance, charges, ...columns } = row;
      if (charges === 0) return this.refuse(request, db);
      const stepNames = new Set(steps.map((step) => step.name));
      return {
        row: Object.fromEntries(Object.entries(columns).filter(([name]) => !stepNames.has(name))) as Row,
        balance: charged_balance === null ? null : Number(charged_balance),
        steps: Object.fromEntries(steps.map((step) => [step.name, columns[step.name] ?? null])),
      };
    };
    return request.settlement
      ? request.settlement.run(readAndCharge, (charged) => charged !== null)
      : readAndCharge(this.store.db);
  }

  /**
   * The statement's `debited` and `charged` steps: debit the account if it can pay and `onlyIf`
   * holds, and append the charge to the ledger with the balance after it.
   */
  private debit(request: ChargeRequest, onlyIf: SQL): SQL {
    return sql`debited as (
        update accounts set credits = credits - ${request.credits}
         where id = ${request.accountId} and (credits is null or credits >= ${request.credits}) and ${onlyIf}
        returning id, credits
      ),
      charged as (
        insert into credit_ledger (account_id, delta, balance_after, kind, operation, request_id, created_at)
        select id, ${-request.credits}, credits, 'charge', ${request.operation}, ${request.requestId},
               ${this.now().toISOString()}::timestamptz from debited
        returning balance_after::float8 as balance_after
      )`;
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
