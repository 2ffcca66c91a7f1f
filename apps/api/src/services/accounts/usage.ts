import { sql } from "drizzle-orm";
import { ApiError } from "../../errors.ts";
import type { Store } from "../../store/database.ts";

/** Credit usage of an account over a period, as `GET /usage` answers it. */
export interface UsageReport {
  kind: "usage";
  from: string;
  to: string;
  balance: number | null;
  credits_spent: number;
  days: Array<{ date: string; credits_spent: number; requests: number }>;
  endpoints: Array<{ endpoint: string; credits_spent: number; requests: number }>;
}

const dayMs = 86_400_000;
/** The longest period one report covers. */
export const maxUsageDays = 366;
/** Requests charged: a reversed charge (one whose request failed) takes its request back out. */
const chargedRequests = sql`(count(*) filter (where kind = 'charge') - count(*) filter (where kind = 'reversal'))::int`;

/** Reads charges from the ledger, per day (UTC) and per operation. */
export class UsageReports {
  constructor(
    private readonly store: Store,
    private readonly now: () => Date,
  ) {}

  /** `from` and `to` are `YYYY-MM-DD` days, both included; the default period is the last 30 days. */
  async report(accountId: string, balance: number | null, from?: string, to?: string): Promise<UsageReport> {
    const lastDay = to ?? this.now().toISOString().slice(0, 10);
    const firstDay = from ?? new Date(Date.parse(lastDay) - 29 * dayMs).toISOString().slice(0, 10);
    const days = (Date.parse(lastDay) - Date.parse(firstDay)) / dayMs + 1;
    if (days < 1) {
      throw invalidPeriod("/query/to", "must not be before from");
    }
    if (days > maxUsageDays) {
      throw invalidPeriod("/query/from", `the period may cover at most ${maxUsageDays} days`);
    }
    const start = `${firstDay}T00:00:00Z`;
    const end = new Date(Date.parse(lastDay) + dayMs).toISOString();

    const perDay = await this.store.query<{ day: string; credits: number; requests: number }>(sql`
      select to_char(created_at at time zone 'UTC', 'YYYY-MM-DD') as day,
             (-sum(delta))::float8 as credits, ${chargedRequests} as requests
        from credit_ledger
       where account_id = ${accountId} and kind in ('charge', 'reversal')
         and created_at >= ${start}::timestamptz and created_at < ${end}::timestamptz
       group by 1`);
    const perEndpoint = await this.store.query<{ endpoint: string; credits: number; requests: number }>(sql`
      select operation as endpoint, (-sum(delta))::float8 as credits, ${chargedRequests} as requests
        from credit_ledger
       where account_id = ${accountId} and kind in ('charge', 'reversal')
         and created_at >= ${start}::timestamptz and created_at < ${end}::timestamptz
       group by 1 order by 2 desc, 1`);

    const byDay = new Map(perDay.map((row) => [row.day, row]));
    const calendar = Array.from({ length: days }, (_, index) => {
      const date = new Date(Date.parse(firstDay) + index * dayMs).toISOString().slice(0, 10);
      const row = byDay.get(date);
      return { date, credits_spent: Number(row?.credits ?? 0), requests: row?.requests ?? 0 };
    });
    return {
      kind: "usage",
      from: firstDay,
      to: lastDay,
      balance,
      credits_spent: calendar.reduce((sum, day) => sum + day.credits_spent, 0),
      days: calendar,
      endpoints: perEndpoint.map((row) => ({
        endpoint: row.endpoint,
        credits_spent: Number(row.credits),
        requests: row.requests,
      })),
    };
  }
}

function invalidPeriod(path: string, message: string): ApiError {
  return new ApiError("invalid_request", "The period is invalid.", { extra: { issues: [{ path, message }] } });
}
