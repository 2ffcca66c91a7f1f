import { createHash } from "node:crypto";
import { sql } from "drizzle-orm";
import { stringify as canonicalJson } from "safe-stable-stringify";
import { ApiError } from "../errors.ts";
import type { Store } from "../store/database.ts";

/** A stored 2xx response, replayed for a retry with the same key. */
export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** What `begin` decided: run the request, or replay what its first run answered. */
export type IdempotencyStart = { action: "run" } | { action: "replay"; response: StoredResponse };

export interface IdempotencyOptions {
  now: () => Date;
  /** How long a stored response is replayed (spec 4.9: 24 hours). */
  retentionSeconds?: number;
  /**
   * How long the key of a first request stays locked without a renewal: a running request renews
   * it (`renew`) every third of this, so only a request whose process died loses its key.
   */
  inFlightSeconds?: number;
}

/** The longest key spec 4.9 allows. */
export const maxIdempotencyKeyLength = 255;

/**
 * Idempotency keys (spec 4.9): the first request with a key runs; a retry with the same body
 * replays its stored 2xx response; another body, or a retry while the first still runs, is a
 * 409. Only 2xx responses are stored, so after a failure the key runs again.
 */
export class Idempotency {
  private readonly retentionSeconds: number;
  private readonly inFlightSeconds: number;

  constructor(
    private readonly store: Store,
    private readonly options: IdempotencyOptions,
  ) {
    this.retentionSeconds = options.retentionSeconds ?? 24 * 60 * 60;
    this.inFlightSeconds = options.inFlightSeconds ?? 5 * 60;
  }

  /** The fingerprint of a request: its method, path and canonical JSON body. */
  static fingerprint(method: string, path: string, body: unknown): string {
    return createHash("sha256")
      .update(`${method} ${path}\n${canonicalJson(body) ?? ""}`)
      .digest("hex");
  }

  async begin(accountId: string, key: string, fingerprint: string): Promise<IdempotencyStart> {
    const now = this.options.now();
    const lockedUntil = new Date(now.getTime() + this.inFlightSeconds * 1000).toISOString();
    const expiresAt = new Date(now.getTime() + this.retentionSeconds * 1000).toISOString();
    const nowIso = now.toISOString();
    // A record that expired, or whose first request was abandoned, is taken over as if new.
    const claimed = await this.store.query<{ key: string }>(sql`
      insert into idempotency_records (account_id, key, fingerprint, state, locked_until, expires_at, created_at)
      values (${accountId}, ${key}, ${fingerprint}, 'in_flight', ${lockedUntil}::timestamptz, ${expiresAt}::timestamptz, ${nowIso}::timestamptz)
      on conflict (account_id, key) do update
        set fingerprint = excluded.fingerprint, state = 'in_flight', locked_until = excluded.locked_until,
            expires_at = excluded.expires_at, created_at = excluded.created_at,
            response_status = null, response_headers = null, response_body = null
        where idempotency_records.expires_at <= ${nowIso}::timestamptz
           or (idempotency_records.state = 'in_flight' and idempotency_records.locked_until <= ${nowIso}::timestamptz)
      returning key`);
    if (claimed.length > 0) return { action: "run" };

    const [existing] = await this.store.query<{
      fingerprint: string;
      state: "in_flight" | "completed";
      response_status: number | null;
      response_headers: Record<string, string> | null;
      response_body: unknown;
    }>(sql`
      select fingerprint, state, response_status, response_headers, response_body
        from idempotency_records where account_id = ${accountId} and key = ${key}`);
    // The first request failed and gave the key back between the two statements: run again.
    if (!existing) return this.begin(accountId, key, fingerprint);
    if (existing.fingerprint !== fingerprint) {
      throw new ApiError("idempotency_conflict", "This Idempotency-Key was used with a different request body.");
    }
    if (existing.state === "in_flight" || existing.response_status === null) {
      throw new ApiError("idempotency_conflict", "The first request with this Idempotency-Key is still running.");
    }
    return {
      action: "replay",
      response: {
        status: existing.response_status,
        headers: existing.response_headers ?? {},
        body: existing.response_body,
      },
    };
  }

  /** How long a key's lock lasts unless renewed: an abandoned key runs again after it. */
  get lockMs(): number {
    return this.inFlightSeconds * 1000;
  }

  /** How often a running request renews its key's lock. */
  get renewalIntervalMs(): number {
    return (this.inFlightSeconds * 1000) / 3;
  }

  /** Extends the lock of a key whose first request is still running. */
  async renew(accountId: string, key: string, fingerprint: string): Promise<void> {
    const lockedUntil = new Date(this.options.now().getTime() + this.inFlightSeconds * 1000).toISOString();
    await this.store.query(sql`
      update idempotency_records set locked_until = ${lockedUntil}::timestamptz
       where account_id = ${accountId} and key = ${key} and fingerprint = ${fingerprint} and state = 'in_flight'`);
  }

  /** Stores the first request's response: replayed if 2xx, otherwise the key is given back. */
  async finish(accountId: string, key: string, fingerprint: string, response: StoredResponse): Promise<void> {
    if (response.status >= 200 && response.status < 300) {
      await this.store.query(sql`
        update idempotency_records
           set state = 'completed', response_status = ${response.status},
               response_headers = ${JSON.stringify(response.headers)}::jsonb, response_body = ${JSON.stringify(response.body)}::json
         where account_id = ${accountId} and key = ${key} and fingerprint = ${fingerprint}`);
      return;
    }
    await this.release(accountId, key, fingerprint);
  }

  /** Gives the key back without storing anything, so the same key runs again. */
  async release(accountId: string, key: string, fingerprint: string): Promise<void> {
    await this.store.query(sql`
      delete from idempotency_records
       where account_id = ${accountId} and key = ${key} and fingerprint = ${fingerprint} and state = 'in_flight'`);
  }

  /** Drops records past their retention. */
  async sweep(): Promise<number> {
    const rows = await this.store.query<{ key: string }>(
      sql`delete from idempotency_records where expires_at <= ${this.options.now().toISOString()}::timestamptz returning key`,
    );
    return rows.length;
  }
}
