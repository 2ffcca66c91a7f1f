import { randomUUID } from "node:crypto";
import type { Schema } from "@verbatim/contract";
import { and, eq, inArray, sql } from "drizzle-orm";
import { ApiError } from "../../errors.ts";
import { newId } from "../../ids.ts";
import { type LiveSources, liveSourceView } from "../../sources/live/index.ts";
import type { Store } from "../../store/database.ts";
import { accounts, liveSessions } from "../../store/schema.ts";
import type { Credits } from "../accounts/index.ts";
import { type PlanName, plans, pricing } from "../accounts/index.ts";
import type { EventCursors } from "../cursors/index.ts";
import { toApiError } from "../failures/index.ts";
import { type WebhookTargetRule, webhookTargetProblem } from "../webhooks/index.ts";
import type { LiveEndings } from "./live-endings.ts";
import type { LiveFeed } from "./live-feed.ts";
import type { LiveCreateInput, LiveRequest, LiveStreamMessage } from "./live-requests.ts";
import { type LiveSessionRow, type LiveStore, runningStatuses } from "./live-store.ts";
import { type LiveSessionView, segmentOfEvent, sessionView } from "./live-views.ts";

type LiveSessionDetail = Schema<"LiveSessionDetail">;
type LiveStatus = LiveSessionView["status"];

export interface LiveSessionsOptions {
  store: Store;
  sessions: LiveStore;
  feed: LiveFeed;
  endings: LiveEndings;
  sources: LiveSources;
  credits: Credits;
  cursors: EventCursors;
  webhookTargets: WebhookTargetRule;
  /** The language the speech engine recognises; null when it detects it. */
  engineLanguage: string | null;
  now: () => Date;
  /** How long `stop` waits for the session's worker to end it before answering. Default 15 s. */
  stopWaitMs?: number;
  /** How long a quiet event stream waits before a keep-alive comment. Default 15 s. */
  keepAliveMs?: number;
}

/** Seconds an account at its cap of sessions is told to wait. */
const sessionsRetryAfterSeconds = 30;

/** The lease a process takes to end, itself, a session no worker holds. */
const stopLeaseSeconds = 30;

/**
 * Live sessions as the API serves them (docs/decisions.md, rule 16): admitted within the plan's
 * cap and a balance of 1 credit, after their stream is resolved; read with a page of their final
 * segments; listed; stopped; and their events streamed, from the store, as they are committed.
 */
export class LiveSessions {
  private readonly owner = newId("wrk");

  constructor(private readonly options: LiveSessionsOptions) {}

  async create(request: LiveRequest, input: LiveCreateInput): Promise<LiveSessionView> {
    const plan = plans[request.plan];
    const maxMinutes = input.max_minutes ?? plan.maxLiveMinutes;
    if (maxMinutes > plan.maxLiveMinutes) {
      throw new ApiError(
        "invalid_request",
        `max_minutes is at most ${plan.maxLiveMinutes} on the ${plan.name} plan. Nothing was charged.`,
        { extra: { issues: [{ path: "/body/max_minutes", message: `must be <= ${plan.maxLiveMinutes}` }] } },
      );
    }
    if (input.webhook_url) {
      const problem = await webhookTargetProblem(input.webhook_url, this.options.webhookTargets);
      if (problem) throw new ApiError("invalid_input", `webhook_url ${problem}.`);
    }
    // Refused before the stream is resolved when it could not be admitted anyway; counted again under the lock below.
    await this.admissible(request.accountId, plan.maxLiveSessions, this.options.store.db);
    const { sources } = this.options;
    const resolution = await (async () => {
      const ref = sources.match(input.url);
      const resolved = await sources.resolve(ref, {
        accountId: request.accountId,
        admission: true,
        ...signalOf(request),
      });
      return { ref, resolved };
    })().catch((error: unknown) => {
      throw toApiError(error);
    });
    const { ref, resolved } = resolution;
    if (resolved.state === "over") {
      throw new ApiError(
        "was_live",
        `${input.url} was live and has ended; its recording is read by the video endpoint.`,
      );
    }
    const now = this.options.now();
    const id = newId("live");
    const reading = resolved.state === "live" ? resolved.reading : "hls";
    const row = await this.options.store.db.transaction(async (tx) => {
      await this.admissible(request.accountId, plan.maxLiveSessions, tx, true);
      const [inserted] = await tx
        .insert(liveSessions)
        .values({
          id,
          accountId: request.accountId,
          status: resolved.state === "waiting" ? "waiting" : "live",
          url: input.url,
          source: liveSourceView(input.url, reading, resolved.details) as unknown as Record<string, unknown>,
          stream: ref as unknown as Record<string, unknown>,
          language: this.options.engineLanguage ?? input.language ?? null,
          partials: input.partials ?? true,
          maxMinutes,
          webhookUrl: input.webhook_url ?? null,
          requestId: request.requestId,
          docsBaseUrl: request.docsBaseUrl,
          createdAt: now,
          nextAttemptAt:
            resolved.state === "waiting" && resolved.startsAt !== null && resolved.startsAt > now
              ? resolved.startsAt
              : now,
          updatedAt: now,
        })
        .returning();
      return inserted;
    });
    if (!row) throw new Error(`live session ${id} was not written`);
    return sessionView(row);
  }

  async get(accountId: string, sessionId: string, page: { after: number; limit: number }): Promise<LiveSessionDetail> {
    const row = await this.owned(accountId, sessionId);
    const events =
      page.limit === 0 ? [] : await this.options.sessions.events(row.id, page.after, page.limit, "live.segment");
    const segments = events.map(segmentOfEvent);
    return { ...sessionView(row), segments, next_after: segments.at(-1)?.seq ?? null };
  }

  async list(
    accountId: string,
    plan: PlanName,
    query: { limit: number; cursor?: string; status?: LiveStatus },
  ): Promise<{
    sessions: LiveSessionView[];
    nextCursor: string | null;
    limits: { max_sessions: number; max_minutes: number };
  }> {
    const scope = `live:${accountId}:${query.status ?? ""}`;
    const before = query.cursor === undefined ? undefined : await this.options.cursors.read(scope, query.cursor);
    const rows = await this.options.sessions.page(accountId, {
      limit: query.limit,
      ...(before === undefined ? {} : { before }),
      ...(query.status === undefined ? {} : { status: query.status }),
    });
    const shown = rows.slice(0, query.limit);
    const last = shown.at(-1);
    return {
      sessions: shown.map(sessionView),
      nextCursor: rows.length > query.limit && last ? await this.options.cursors.issue(scope, last.id) : null,
      limits: { max_sessions: plans[plan].maxLiveSessions, max_minutes: plans[plan].maxLiveMinutes },
    };
  }

  /**
   * Stops a running session and answers it as it ends: its worker ends it at its next step (the
   * audio heard so far charged and recognised, the transcript in the library). A session no
   * worker holds is ended here. A session already over is answered as it is.
   */
  async stop(accountId: string, sessionId: string): Promise<LiveSessionView> {
    const { sessions, feed, endings, now } = this.options;
    let row = await this.owned(accountId, sessionId);
    if (!isRunning(row)) return sessionView(row);
    await sessions.requestStop(sessionId);
    const deadline = Date.now() + (this.options.stopWaitMs ?? 15_000);
    for (;;) {
      row = await this.owned(accountId, sessionId);
      if (!isRunning(row)) return sessionView(row);
      const unheld = row.leaseExpiresAt === null || row.leaseExpiresAt < now();
      const holder = unheld ? await this.takeLease(sessionId) : null;
      if (holder) {
        await endings.end(sessionId, holder, { kind: "ended", reason: "stopped" });
        return sessionView(await this.owned(accountId, sessionId));
      }
      if (Date.now() > deadline) return sessionView(row);
      await feed.wait(sessionId, 1_000);
    }
  }

  /**
   * The session's events as they are committed: the durable ones after `afterSeq` from the store,
   * then each new one as it is announced, with the newest partial when it changed (after the
   * event it follows); a keep-alive when nothing happened for a while. Ends after `live.ended` or
   * `live.failed`, or when `signal` aborts.
   */
  async *stream(row: LiveSessionRow, afterSeq: number, signal: AbortSignal): AsyncGenerator<LiveStreamMessage> {
    const { sessions, feed } = this.options;
    const keepAliveMs = this.options.keepAliveMs ?? 15_000;
    let after = afterSeq;
    let partialVersion = -1;
    while (!signal.aborted) {
      // The row first: its newest event and its partial belong together, and the partial follows that event.
      const [current] = await this.options.store.db
        .select({ lastSeq: liveSessions.lastSeq, partial: liveSessions.partial, partials: liveSessions.partials })
        .from(liveSessions)
        .where(eq(liveSessions.id, row.id));
      if (!current) return;
      const lastSeq = Number(current.lastSeq);
      while (after < lastSeq) {
        const events = await sessions.events(row.id, after, Math.min(500, lastSeq - after));
        if (events.length === 0) break;
        for (const event of events) {
          yield { kind: "event", seq: event.seq, type: event.type, data: event.body };
          after = event.seq;
          if (event.type === "live.ended" || event.type === "live.failed") return;
        }
      }
      const partial = current.partial as { version?: number; start?: number; text?: string } | null;
      if (current.partials && partial && typeof partial.version === "number" && partial.version !== partialVersion) {
        partialVersion = partial.version;
        yield {
          kind: "event",
          seq: null,
          type: "live.partial",
          data: { type: "live.partial", session_id: row.id, start: partial.start ?? 0, text: partial.text ?? "" },
        };
      }
      const waited = Date.now();
      await feed.wait(row.id, keepAliveMs, signal);
      if (!signal.aborted && Date.now() - waited >= keepAliveMs) yield { kind: "keep-alive" };
    }
  }

  /** The account's session; another account's is as unknown as a missing one. */
  async owned(accountId: string, sessionId: string): Promise<LiveSessionRow> {
    const row = await this.options.sessions.find(sessionId, accountId);
    if (!row) throw new ApiError("not_found", `No live session ${sessionId} on this account.`);
    return row;
  }

  /**
   * Refuses a session the account cannot start: 429 at the plan's cap of running sessions, 402
   * without 1 credit. With `lock`, the account's row is locked while it counts, so that
   * concurrent requests, in any process, are admitted one at a time.
   */
  private async admissible(
    accountId: string,
    maxSessions: number,
    db: Parameters<Parameters<Store["db"]["transaction"]>[0]>[0] | Store["db"],
    lock = false,
  ): Promise<void> {
    const query = db.select({ credits: accounts.credits }).from(accounts).where(eq(accounts.id, accountId));
    const [account] = lock ? await query.for("update") : await query;
    const [running] = await db
      .select({ count: sql<number>`count(*)::int` })
      .from(liveSessions)
      .where(and(eq(liveSessions.accountId, accountId), inArray(liveSessions.status, [...runningStatuses])));
    const count = running?.count ?? 0;
    if (count >= maxSessions) {
      throw new ApiError(
        "rate_limited",
        `The account runs ${count} live session${count === 1 ? "" : "s"}, the most its plan allows at once. Nothing was charged; stop one, or retry when one has ended.`,
        { retryAfterSeconds: sessionsRetryAfterSeconds },
      );
    }
    this.options.credits.requireAtLeast(account?.credits ?? null, pricing.minimum());
  }

  /** Takes the lease of a session no worker holds, to end it here: its holder, or null when a worker took it meanwhile. */
  private async takeLease(sessionId: string): Promise<string | null> {
    const now = this.options.now();
    const holder = `${this.owner}/${randomUUID()}`;
    const taken = await this.options.store.query<{ id: string }>(sql`
      update live_sessions
         set lease_owner = ${holder},
             lease_expires_at = ${new Date(now.getTime() + stopLeaseSeconds * 1000).toISOString()}::timestamptz
       where id = ${sessionId} and status in ('waiting', 'live')
         and (lease_expires_at is null or lease_expires_at < ${now.toISOString()}::timestamptz)
      returning id`);
    return taken.length > 0 ? holder : null;
  }
}

function isRunning(row: LiveSessionRow): boolean {
  return (runningStatuses as readonly string[]).includes(row.status);
}

function signalOf(request: LiveRequest): { signal?: AbortSignal } {
  return request.signal ? { signal: request.signal } : {};
}
