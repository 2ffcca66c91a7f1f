import { createHash } from "node:crypto";
import { sql } from "drizzle-orm";
import { stringify as canonicalJson } from "safe-stable-stringify";
import { ApiError } from "../../errors.ts";
import type { DatabaseOrTransaction, Store } from "../../store/database.ts";
import type { ChargeSettlement } from "./credits.ts";

/** A stored 2xx response, replayed for a retry with the same key. */
export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** What `begin` decided: run the request, or replay what its first run answered. */
export type IdempotencyStart = { action: "run" } | { action: "replay"; response: StoredResponse };

/**
 * How long a key stays locked without a renewal. Short, so that the retry of a request whose process
 * died runs within it (a 409 says how long to wait); long enough that a renewal missed while the
 * store was briefly away does not hand a running request's key to its retry.
 */
export const defaultInFlightSeconds = 30;

export interface IdempotencyOptions {
  now: () => Date;
  /** How long a stored response is replayed (docs/decisions.md rule 9: 24 hours). */
  retentionSeconds?: number;
  /**
   * How long the key of a first request stays locked without a renewal: a running request renews
   * it (`renew`) every third of this, so only a request whose process died loses its key.
   */
  inFlightSeconds?: number;
}

/**
 * Idempotency keys (docs/decisions.md, rule 9): the first request with a key runs; a retry with the same body
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
    this.inFlightSeconds = options.inFlightSeconds ?? defaultInFlightSeconds;
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
      locked_until: string;
      response_status: number | null;
      response_headers: Record<string, string> | null;
      response_body: unknown;
    }>(sql`
      select fingerprint, state, locked_until, response_status, response_headers, response_body
        from idempotency_records where account_id = ${accountId} and key = ${key}`);
    // The first request failed and gave the key back between the two statements: run again.
    if (!existing) return this.begin(accountId, key, fingerprint);
    if (existing.fingerprint !== fingerprint) {
      throw new ApiError("idempotency_conflict", "This Idempotency-Key was used with a different request body.");
    }
    if (existing.state === "in_flight" || existing.response_status === null) {
      // By the time the lock lapses the first request has stored its answer, or its process died and the retry runs.
      const lapsesInMs = new Date(existing.locked_until).getTime() - now.getTime();
      throw new ApiError("idempotency_conflict", "The first request with this Idempotency-Key is still running.", {
        retryAfterSeconds: Math.min(this.inFlightSeconds, Math.max(1, Math.ceil(lapsesInMs / 1000))),
      });
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

  /** The answer to the first request with the key, which its charge commits with (`IdempotentAnswer`). */
  answerTo(accountId: string, key: string, fingerprint: string): IdempotentAnswer {
    return new IdempotentAnswer(this, this.store, { accountId, key, fingerprint });
  }

  /**
   * Stores the first request's response: replayed if 2xx, otherwise the key is given back. Given a
   * transaction (`db`), the response commits with it.
   */
  async finish(
    accountId: string,
    key: string,
    fingerprint: string,
    response: StoredResponse,
    db: DatabaseOrTransaction = this.store.db,
  ): Promise<void> {
    if (response.status >= 200 && response.status < 300) {
      await db.execute(sql`
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

/** The key of a first request, as `begin` claimed it. */
interface ClaimedKey {
  accountId: string;
  key: string;
  fingerprint: string;
}

/** What the charge's transaction waits for: the 2xx answer to store with the charge, or `null` to roll it back. */
type Verdict = StoredResponse | null;

/**
 * The answer to the first request with an Idempotency-Key, committed in one transaction with the
 * request's charge (docs/decisions.md, rule 9). A charge made through it (`run`) leaves its transaction open until
 * the request answers: a 2xx answer is then stored in it and both commit, any other answer rolls
 * the charge back. A process that dies between the charge and the answer commits neither: the
 * key's lock lapses, and the retry runs as the first request did, charged once.
 */
export class IdempotentAnswer implements ChargeSettlement {
  private open: { transaction: DatabaseOrTransaction; decide: (verdict: Verdict) => void } | undefined;
  private committed: Promise<void> = Promise.resolve();
  private readonly onCommit: Array<() => void> = [];

  constructor(
    private readonly idempotency: Idempotency,
    private readonly store: Store,
    private readonly claimed: ClaimedKey,
  ) {}

  get transaction(): DatabaseOrTransaction | undefined {
    return this.open?.transaction;
  }

  /** Whether a charge waits in its transaction for the answer. */
  get holdsCharge(): boolean {
    return this.open !== undefined;
  }

  run<T>(statement: (db: DatabaseOrTransaction) => Promise<T>, charged: (result: T) => boolean): Promise<T> {
    if (this.open) return Promise.reject(new Error("a request with an Idempotency-Key is charged once"));
    let decide: (verdict: Verdict) => void = () => undefined;
    const verdict = new Promise<Verdict>((resolve) => {
      decide = resolve;
    });
    return new Promise<T>((resolve, reject) => {
      let answered = false;
      const transaction = this.store.db.transaction(async (tx): Promise<T | undefined> => {
        const result = await statement(tx);
        if (!charged(result)) return result;
        this.open = { transaction: tx, decide };
        answered = true;
        resolve(result);
        const response = await verdict;
        if (response === null) return tx.rollback();
        const { accountId, key, fingerprint } = this.claimed;
        await this.idempotency.finish(accountId, key, fingerprint, response, tx);
        return undefined;
      });
      this.committed = transaction.then(
        () => {
          this.open = undefined;
          for (const action of this.onCommit.splice(0)) action();
        },
        (error: unknown) => {
          this.open = undefined;
          this.onCommit.length = 0;
          throw error;
        },
      );
      // A failure after the charge answered is the commit's: `complete` reports it.
      this.committed.catch(() => undefined);
      transaction.then(
        (result) => {
          if (!answered) resolve(result as T);
        },
        (error: unknown) => {
          if (!answered) reject(error);
        },
      );
    });
  }

  afterCommit(action: () => void): void {
    if (this.open) this.onCommit.push(action);
    else action();
  }

  /** Records a 2xx answer: in the transaction of the charge that waits for it, committing both, or on its own. */
  async complete(response: StoredResponse): Promise<void> {
    if (!this.open) {
      const { accountId, key, fingerprint } = this.claimed;
      await this.idempotency.finish(accountId, key, fingerprint, response);
      return;
    }
    this.open.decide(response);
    await this.committed;
  }

  /** Rolls back the charge that waits for an answer which is not a success: a failure is not charged. */
  async abandon(): Promise<void> {
    if (!this.open) return;
    this.open.decide(null);
    await this.committed.catch(() => undefined);
  }
}
