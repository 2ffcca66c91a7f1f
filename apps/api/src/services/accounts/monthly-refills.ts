import { sql } from "drizzle-orm";
import type { Store } from "../../store/database.ts";

/** Accounts one `runDue` statement refills, so no statement holds many row locks. */
const refillBatchSize = 500;

/**
 * The plans' monthly credits. Each account's cycles start on its creation date, month after
 * month in UTC (the 31st falls back to the month's last day, as PostgreSQL adds months). At the
 * start of a cycle the balance is raised to the plan's monthly credits when it is lower; a
 * balance above them (an operator's grant) is left alone. Either way the ledger records the
 * refill, once per account and cycle, however many workers run it: the account row is claimed
 * with `SKIP LOCKED` and its `refilled_cycles` moves in the same statement. Unlimited accounts
 * have nothing to refill.
 */
export class MonthlyRefills {
  constructor(
    private readonly store: Store,
    private readonly now: () => Date,
  ) {}

  /** Refills every account whose next cycle has started; answers how many were refilled. */
  async runDue(): Promise<number> {
    let refilled = 0;
    for (;;) {
      const rows = await this.store.query<{ account_id: string }>(this.refillStatement());
      refilled += rows.length;
      if (rows.length < refillBatchSize) return refilled;
    }
  }

  private refillStatement() {
    const now = sql`(${this.now().toISOString()}::timestamptz at time zone 'UTC')`;
    return sql`
      with due as (
        select a.id, a.credits as before, a.refilled_cycles, p.monthly_credits,
               a.created_at at time zone 'UTC' as created_utc
          from accounts a join plans p on p.name = a.plan
         where a.credits is not null
           and (a.created_at at time zone 'UTC') + make_interval(months => a.refilled_cycles + 1) <= ${now}
         order by a.id
         limit ${refillBatchSize}
         for update of a skip locked
      ),
      elapsed as (
        select due.*,
               (extract(year from age(${now}, created_utc)) * 12 + extract(month from age(${now}, created_utc)))::int
                 as whole_months
          from due
      ),
      cycles as (
        -- age() never overcounts months; one more may have begun at a month's end (Jan 31 + 1 month = Feb 28).
        select elapsed.*,
               greatest(refilled_cycles + 1,
                        case when created_utc + make_interval(months => whole_months + 1) <= ${now}
                             then whole_months + 1 else whole_months end) as cycle
          from elapsed
      ),
      refilled as (
        update accounts a set credits = greatest(a.credits, c.monthly_credits), refilled_cycles = c.cycle
          from cycles c
         where a.id = c.id
        returning a.id, a.credits, c.before, c.cycle
      )
      insert into credit_ledger (account_id, delta, balance_after, kind, reason, created_at)
      select id, credits - before, credits, 'refill', 'monthly plan credits, cycle ' || cycle,
             ${this.now().toISOString()}::timestamptz
        from refilled
      returning account_id`;
  }
}

/** When an account's next refill is due: its creation plus one month more than the cycles refilled, in UTC. */
export function nextRefillAt(createdAt: Date, refilledCycles: number): Date {
  const months = createdAt.getUTCMonth() + refilledCycles + 1;
  const year = createdAt.getUTCFullYear() + Math.floor(months / 12);
  const month = months % 12;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  const next = new Date(createdAt);
  next.setUTCFullYear(year, month, Math.min(createdAt.getUTCDate(), lastDay));
  return next;
}
