import { sql } from "drizzle-orm";
import type { Store } from "../store/database.ts";
import type { PlanName } from "./plans.ts";

/** Which allowance a request counts against: the request allowance, or the polling allowance (spec 8.3). */
export type Allowance = "request" | "poll";

/** The allowance after this request, described by its more restrictive limit (spec 8.2). */
export interface AllowanceState {
  limit: number;
  remaining: number;
  /** When a slot of the window frees up again. */
  resetAt: Date;
}

/** An authenticated request and whether its allowance admitted it. */
export interface Authentication {
  accountId: string;
  keyId: string;
  plan: PlanName;
  /** The balance when the request arrived; `null` for unlimited accounts. */
  credits: number | null;
  admitted: boolean;
  allowance: AllowanceState;
}

interface AuthenticateRow {
  account_id: string;
  key_id: string;
  plan: PlanName;
  credits: number | null;
  admitted: boolean;
  rate_limit: number;
  rate_remaining: number;
  rate_reset: Date | string;
}

/** Looks a key up by its hash and counts the request against its allowance, in one round trip. */
export class Authenticator {
  constructor(private readonly store: Store) {}

  /** `null` when the key is unknown or revoked. */
  async authenticate(secretHash: string, allowance: Allowance, now: Date): Promise<Authentication | null> {
    const [row] = await this.store.query<AuthenticateRow>(
      sql`select * from verbatim_authenticate(${secretHash}, ${allowance}, ${now.toISOString()}::timestamptz)`,
    );
    if (!row) return null;
    return {
      accountId: row.account_id,
      keyId: row.key_id,
      plan: row.plan,
      credits: row.credits === null ? null : Number(row.credits),
      admitted: row.admitted,
      allowance: { limit: row.rate_limit, remaining: row.rate_remaining, resetAt: new Date(row.rate_reset) },
    };
  }

  /** The request allowance of a key without counting a request against it. */
  async peekRequestAllowance(accountId: string, keyId: string, now: Date): Promise<AllowanceState> {
    const [row] = await this.store.query<{
      account_limit: number;
      key_limit: number | null;
      account_used: number;
      account_oldest: Date | string | null;
      key_used: number;
      key_oldest: Date | string | null;
    }>(sql`
      select p.requests_per_minute as account_limit,
             k.requests_per_minute as key_limit,
             (select count(*)::int from rate_limit_hits h
               where h.account_id = ${accountId} and h.allowance = 'request' and h.at > ${windowStart(now)}::timestamptz) as account_used,
             (select min(h.at) from rate_limit_hits h
               where h.account_id = ${accountId} and h.allowance = 'request' and h.at > ${windowStart(now)}::timestamptz) as account_oldest,
             (select count(*)::int from rate_limit_hits h
               where h.key_id = ${keyId} and h.allowance = 'request' and h.at > ${windowStart(now)}::timestamptz) as key_used,
             (select min(h.at) from rate_limit_hits h
               where h.key_id = ${keyId} and h.allowance = 'request' and h.at > ${windowStart(now)}::timestamptz) as key_oldest
        from api_keys k join accounts a on a.id = k.account_id join plans p on p.name = a.plan
       where k.id = ${keyId}`);
    if (!row) throw new Error(`key ${keyId} vanished`);
    const account = stateOf(row.account_limit, row.account_used, row.account_oldest, now);
    if (row.key_limit === null) return account;
    const key = stateOf(row.key_limit, row.key_used, row.key_oldest, now);
    return key.remaining < account.remaining ? key : account;
  }
}

function windowStart(now: Date): string {
  return new Date(now.getTime() - 60_000).toISOString();
}

function stateOf(limit: number, used: number, oldest: Date | string | null, now: Date): AllowanceState {
  const resetFrom = oldest === null ? now : new Date(oldest);
  return { limit, remaining: Math.max(limit - used, 0), resetAt: new Date(resetFrom.getTime() + 60_000) };
}
