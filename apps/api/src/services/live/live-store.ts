import { and, asc, desc, eq, gt, inArray, lt, sql } from "drizzle-orm";
import type { DatabaseOrTransaction, Store } from "../../store/database.ts";
import { liveEvents, liveSessions } from "../../store/schema.ts";
import type { LiveFeed } from "./live-feed.ts";

export type LiveSessionRow = typeof liveSessions.$inferSelect;
export type LiveEventRow = typeof liveEvents.$inferSelect;

/** The durable event types, in the store and on the wire. */
export type LiveEventType = "live.started" | "live.segment" | "live.gap" | "live.ended" | "live.failed";

/** An event to record: its body without the fields the store numbers and dates. */
export interface NewLiveEvent {
  type: LiveEventType;
  fields: Record<string, unknown>;
}

/** A recorded event, as the event stream and webhooks send it. */
export interface RecordedLiveEvent {
  seq: number;
  type: LiveEventType;
  body: Record<string, unknown>;
}

/** The session's lease moved to another worker, or the session ended: its former holder must stop at once. */
export class LeaseLost extends Error {
  override readonly name = "LeaseLost";
  constructor(sessionId: string) {
    super(`This worker no longer holds live session ${sessionId}.`);
  }
}

/** A claimed session: the row, the lease taken on it, and whether a worker held it before (it is taken over, not started). */
export interface ClaimedSession {
  row: LiveSessionRow;
  /**
   * The lease's holder as the row records it: the worker's id and a token of this claim, so that a
   * run whose lease lapsed is fenced off even when the same worker claims the session again.
   */
  lease: string;
  resumed: boolean;
}

/** The statuses of a session that a worker runs. */
export const runningStatuses = ["waiting", "live"] as const;

/**
 * The rows of live sessions and their events. What the holder of a session writes goes through
 * `withLease`: one transaction that first checks, on the session's row, that the writer still holds
 * its lease, so a worker whose lease lapsed and went to another can record and charge nothing more.
 */
export class LiveStore {
  constructor(
    private readonly store: Store,
    private readonly feed: LiveFeed,
    private readonly now: () => Date,
  ) {}

  async find(sessionId: string, accountId?: string): Promise<LiveSessionRow | null> {
    const [row] = await this.store.db
      .select()
      .from(liveSessions)
      .where(
        accountId === undefined
          ? eq(liveSessions.id, sessionId)
          : and(eq(liveSessions.id, sessionId), eq(liveSessions.accountId, accountId)),
      );
    return row ?? null;
  }

  /** The account's sessions older than `before` (a session id), newest first, one more than `limit` when more follow. */
  async page(
    accountId: string,
    options: { limit: number; before?: string; status?: string },
  ): Promise<LiveSessionRow[]> {
    return this.store.db
      .select()
      .from(liveSessions)
      .where(
        and(
          eq(liveSessions.accountId, accountId),
          options.before === undefined ? undefined : lt(liveSessions.id, options.before),
          options.status === undefined ? undefined : eq(liveSessions.status, options.status),
        ),
      )
      .orderBy(desc(liveSessions.id))
      .limit(options.limit + 1);
  }

  /** The session's events after `afterSeq`, in order, at most `limit`; of `type` only when given. */
  async events(sessionId: string, afterSeq: number, limit: number, type?: LiveEventType): Promise<RecordedLiveEvent[]> {
    const rows = await this.store.db
      .select({ seq: liveEvents.seq, type: liveEvents.type, body: liveEvents.body })
      .from(liveEvents)
      .where(
        and(
          eq(liveEvents.sessionId, sessionId),
          gt(liveEvents.seq, afterSeq),
          type === undefined ? undefined : eq(liveEvents.type, type),
        ),
      )
      .orderBy(asc(liveEvents.seq))
      .limit(limit);
    return rows.map((row) => ({ seq: Number(row.seq), type: row.type as LiveEventType, body: row.body }));
  }

  /** Asks the holder to stop the session; answers whether it was still running. */
  async requestStop(sessionId: string): Promise<boolean> {
    const moved = await this.store.db
      .update(liveSessions)
      .set({ stopRequestedAt: this.now(), nextAttemptAt: this.now(), updatedAt: this.now() })
      .where(and(eq(liveSessions.id, sessionId), inArray(liveSessions.status, [...runningStatuses])))
      .returning({ id: liveSessions.id });
    return moved.length > 0;
  }

  /**
   * Takes the lease of up to `count` sessions that are due and that no worker holds (or whose
   * holder let the lease lapse), oldest due first, leaving out those in `running` (this worker's
   * own); rows another worker is claiming are skipped. Each lease is `owner` and a token of its own.
   */
  async claim(
    owner: string,
    count: number,
    leaseSeconds: number,
    running: readonly string[] = [],
  ): Promise<ClaimedSession[]> {
    if (count <= 0) return [];
    const now = this.now();
    const excluded =
      running.length === 0
        ? sql``
        : sql`and id not in (${sql.join(
            running.map((id) => sql`${id}`),
            sql`, `,
          )})`;
    const claimed = await this.store.query<{ id: string; lease: string; resumed: boolean }>(sql`
      with due as (
        select id from live_sessions
         where status in ('waiting', 'live') and next_attempt_at <= ${now.toISOString()}::timestamptz
           and (lease_expires_at is null or lease_expires_at < ${now.toISOString()}::timestamptz)
           ${excluded}
         order by next_attempt_at
         limit ${count}
         for update skip locked
      )
      update live_sessions s
         set lease_owner = ${owner} || '/' || substr(md5(random()::text || s.id), 1, 16),
             lease_expires_at = ${new Date(now.getTime() + leaseSeconds * 1000).toISOString()}::timestamptz,
             updated_at = ${now.toISOString()}::timestamptz
        from due where s.id = due.id
      returning s.id, s.lease_owner as lease, s.started_at is not null as resumed`);
    if (claimed.length === 0) return [];
    const rows = await this.store.db
      .select()
      .from(liveSessions)
      .where(
        inArray(
          liveSessions.id,
          claimed.map((row) => row.id),
        ),
      );
    return rows.flatMap((row) => {
      const claim = claimed.find((entry) => entry.id === row.id);
      return claim ? [{ row, lease: claim.lease, resumed: claim.resumed === true }] : [];
    });
  }

  /** Renews the lease; answers whether the worker still holds it, and whether a stop was asked for. */
  async renew(
    sessionId: string,
    owner: string,
    leaseSeconds: number,
  ): Promise<{ held: boolean; stopRequested: boolean }> {
    const now = this.now();
    const [row] = await this.store.db
      .update(liveSessions)
      .set({ leaseExpiresAt: new Date(now.getTime() + leaseSeconds * 1000) })
      .where(this.heldBy(sessionId, owner))
      .returning({ stopRequestedAt: liveSessions.stopRequestedAt });
    return { held: row !== undefined, stopRequested: row?.stopRequestedAt != null };
  }

  /** Gives the lease back without ending the session (a worker shutting down): another takes it over at once. */
  async release(sessionId: string, owner: string, nextAttemptAt: Date = this.now()): Promise<void> {
    await this.store.db
      .update(liveSessions)
      .set({ leaseOwner: null, leaseExpiresAt: null, nextAttemptAt, updatedAt: this.now() })
      .where(this.heldBy(sessionId, owner));
  }

  /**
   * Runs `work` in a transaction that holds the session's row, if `owner` still holds its lease
   * and the session still runs; throws `LeaseLost` otherwise. `record` numbers events after the
   * session's newest and writes them; the session is announced when the transaction commits.
   */
  async withLease<T>(
    sessionId: string,
    owner: string,
    work: (tx: DatabaseOrTransaction, record: (events: NewLiveEvent[]) => Promise<RecordedLiveEvent[]>) => Promise<T>,
  ): Promise<T> {
    return this.store.db.transaction(async (tx) => {
      const [held] = await tx
        .select({ lastSeq: liveSessions.lastSeq })
        .from(liveSessions)
        .where(this.heldBy(sessionId, owner))
        .for("update");
      if (!held) throw new LeaseLost(sessionId);
      let lastSeq = Number(held.lastSeq);
      const record = async (events: NewLiveEvent[]): Promise<RecordedLiveEvent[]> => {
        if (events.length === 0) return [];
        const createdAt = this.now();
        const recorded = events.map((event) => {
          lastSeq += 1;
          const body = {
            type: event.type,
            seq: lastSeq,
            session_id: sessionId,
            created_at: createdAt.toISOString(),
            ...event.fields,
          };
          return { seq: lastSeq, type: event.type, body };
        });
        await tx
          .insert(liveEvents)
          .values(
            recorded.map((event) => ({ sessionId, seq: event.seq, type: event.type, body: event.body, createdAt })),
          );
        await tx.update(liveSessions).set({ lastSeq }).where(eq(liveSessions.id, sessionId));
        return recorded;
      };
      const result = await work(tx, record);
      await this.feed.announce(sessionId, tx);
      return result;
    });
  }

  private heldBy(sessionId: string, owner: string) {
    return and(
      eq(liveSessions.id, sessionId),
      eq(liveSessions.leaseOwner, owner),
      inArray(liveSessions.status, [...runningStatuses]),
    );
  }
}
