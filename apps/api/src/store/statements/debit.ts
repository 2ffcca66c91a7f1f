import { type SQL, sql } from "drizzle-orm";

/** What one debit takes from an account and records in the ledger. */
export interface Debit {
  accountId: string;
  credits: number;
  /** The operation charged, as `METHOD /path`. */
  operation: string;
  requestId: string;
  /** Names this charge in the ledger, so that it can be found when its answer was lost. */
  key: string;
  at: Date;
}

/**
 * The `debited` and `charged` steps of a statement that charges: debit the account if it can pay
 * and `onlyIf` holds, and append the charge to the ledger with the balance after it. `charged`
 * answers `balance_after`, no row when nothing was charged.
 */
export function debitSteps(debit: Debit, onlyIf: SQL): SQL {
  return sql`debited as (
      update accounts set credits = credits - ${debit.credits}
       where id = ${debit.accountId} and (credits is null or credits >= ${debit.credits}) and ${onlyIf}
      returning id, credits
    ),
    charged as (
      insert into credit_ledger (account_id, delta, balance_after, kind, operation, request_id, charge_key, created_at)
      select id, ${-debit.credits}, credits, 'charge', ${debit.operation}, ${debit.requestId}, ${debit.key},
             ${debit.at.toISOString()}::timestamptz from debited
      returning balance_after::float8 as balance_after
    )`;
}
