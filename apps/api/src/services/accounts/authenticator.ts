import { sql } from "drizzle-orm";
import type { Store } from "../../store/database.ts";
import { executePrepared } from "../../store/prepared.ts";
import { type PlanName, plans } from "./plans.ts";
import type { AccountSlots, SlotLease } from "./slots.ts";

/**
 * Which allowance a request counts against: the request allowance, or the polling allowance
 * (docs/decisions.md, rule 6).
 */
export type Allowance = "request" | "poll";

/** The allowance after this request, described by its more restrictive limit (docs/decisions.md, rule 6). */
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
  /** The allowance this request counted against. */
  allowance: AllowanceState;
  /** The request allowance, which `GET /me` shows while it counts against the polling allowance. */
  requestAllowance: AllowanceState;
  /** The extraction slot taken with the admission, when one was asked for, the request was admitted and a slot was free. */
  slot?: SlotLease;
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
  request_limit: number;
  request_remaining: number;
  request_reset: Date | string;
  slot_taken: boolean | null;
}

/** Each plan's extraction slots, as the statement that admits a request and takes its slot reads them. */
const extractionSlotsByPlan = JSON.stringify(
  Object.fromEntries(Object.values(plans).map((plan) => [plan.name, plan.extractionSlots])),
);

/** What counting the rest of a heavy request's weight did (`Authenticator.admitMore`). */
export interface FurtherAdmission {
  admitted: boolean;
  /** The further requests counted: the weight asked, less what the allowance's limit leaves out; 0 when refused. */
  counted: number;
  /** The allowance after it. */
  allowance: AllowanceState;
  /** When refused: when the window will have room for the weight. */
  fitsAt: Date | null;
}

interface AdmitMoreRow {
  admitted: boolean;
  counted: number;
  rate_limit: number;
  rate_remaining: number;
  rate_reset: Date | string;
  fits_at: Date | string | null;
}

/** Looks a key up by its hash and counts the request against its allowance, in one round trip. */
export class Authenticator {
  constructor(private readonly store: Store) {}

  /** Whether the key is known and not revoked, without counting anything against its allowances. */
  async isActive(secretHash: string, now: Date): Promise<boolean> {
    const rows = await this.store.query<{ active: boolean }>(
      sql`select true as active from api_keys
           where secret_hash = ${secretHash} and (revoked_at is null or revoked_at > ${now.toISOString()}::timestamptz)`,
    );
    return rows.length > 0;
  }

  /**
   * `null` when the key is unknown or revoked. Given `extractionSlots`, an admitted request also
   * takes one of its account's slots in the same statement, when one is free (`slot`).
   */
  async authenticate(
    secretHash: string,
    allowance: Allowance,
    now: Date,
    extractionSlots?: AccountSlots,
  ): Promise<Authentication | null> {
    const taking = extractionSlots?.acquisitionWithin(
      sql`a.account_id`,
      sql`(${extractionSlotsByPlan}::jsonb ->> a.plan)::int`,
    );
    const [row] = await executePrepared<AuthenticateRow>(
      this.store.db,
      sql`select a.*, ${taking ? sql`case when a.admitted then ${taking.taken} end` : sql`null::boolean`} as slot_taken
            from verbatim_authenticate(${secretHash}, ${allowance}, ${now.toISOString()}::timestamptz) a`,
    );
    if (!row) return null;
    const slot = taking && row.slot_taken ? { id: taking.leaseId, accountId: row.account_id } : undefined;
    if (slot) extractionSlots?.adopt(slot);
    return {
      ...(slot ? { slot } : {}),
      accountId: row.account_id,
      keyId: row.key_id,
      plan: row.plan,
      credits: row.credits === null ? null : Number(row.credits),
      admitted: row.admitted,
      allowance: { limit: row.rate_limit, remaining: row.rate_remaining, resetAt: new Date(row.rate_reset) },
      requestAllowance: {
        limit: row.request_limit,
        remaining: row.request_remaining,
        resetAt: new Date(row.request_reset),
      },
    };
  }

  /**
   * Counts `requests` more requests of a request the key's allowance admitted, all or none:
   * refused when the window has no room for all of them. A weight counts at most the limit less
   * the admitted request, so the heaviest request stays possible once a minute. `null` when the
   * key no longer exists.
   */
  async admitMore(keyId: string, allowance: Allowance, requests: number, now: Date): Promise<FurtherAdmission | null> {
    const [row] = await this.store.query<AdmitMoreRow>(
      sql`select * from verbatim_admit_more(${keyId}, ${allowance}, ${requests}, ${now.toISOString()}::timestamptz)`,
    );
    if (!row) return null;
    return {
      admitted: row.admitted,
      counted: Number(row.counted),
      allowance: { limit: row.rate_limit, remaining: row.rate_remaining, resetAt: new Date(row.rate_reset) },
      fitsAt: row.fits_at === null ? null : new Date(row.fits_at),
    };
  }
}
