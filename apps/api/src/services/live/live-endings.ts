import { asc, eq } from "drizzle-orm";
import type { SpeechEngineInfo } from "../../adapters/asr/index.ts";
import type { DatabaseOrTransaction } from "../../store/database.ts";
import { liveEvents, liveSessions } from "../../store/schema.ts";
import type { FullTranscript } from "../kept/index.ts";
import type { LiveStore } from "./live-store.ts";
import { failureError, type LiveFailure, liveTranscript, segmentOfEvent } from "./live-views.ts";
import type { LiveWebhooks } from "./live-webhooks.ts";

/** How a session ends: `ended` or `stopped` with its reason, or `failed` with its error. */
export type LiveOutcome =
  | { kind: "ended"; reason: "stream_ended" | "max_minutes" | "insufficient_credits" | "stopped" }
  | { kind: "failed"; failure: LiveFailure };

/** Where a session's finished transcript is kept: the account's library. */
export interface LiveLibrary {
  record(accountId: string, transcript: FullTranscript, db?: DatabaseOrTransaction): Promise<void>;
}

/**
 * The end of a session, in one transaction of its lease holder: the segments not yet delivered go
 * to the webhook, the `live.ended` (or `live.failed`) event is recorded and delivered, the
 * transcript enters the library, and the session leaves the running statuses, lease and all.
 */
export class LiveEndings {
  constructor(
    private readonly sessions: LiveStore,
    private readonly library: LiveLibrary,
    private readonly webhooks: LiveWebhooks,
    private readonly engine: () => SpeechEngineInfo,
    private readonly now: () => Date,
  ) {}

  async end(
    sessionId: string,
    owner: string,
    outcome: LiveOutcome,
    progress: Partial<SessionProgress> = {},
  ): Promise<void> {
    await this.sessions.withLease(sessionId, owner, async (tx, record) => {
      const [row] = await tx.select().from(liveSessions).where(eq(liveSessions.id, sessionId));
      if (!row) throw new Error(`live session ${sessionId} vanished under its lease`);
      const current = { ...row, ...progress };
      const [event] =
        outcome.kind === "ended"
          ? await record([
              {
                type: "live.ended",
                fields: {
                  reason: outcome.reason,
                  audio_seconds: Math.round(current.audioSeconds * 1000) / 1000,
                  credits_spent: current.chargedMinutes,
                },
              },
            ])
          : await record([
              { type: "live.failed", fields: { error: failureError(outcome.failure).toBody(row.docsBaseUrl) } },
            ]);
      const segments = (
        await tx
          .select({ seq: liveEvents.seq, body: liveEvents.body })
          .from(liveEvents)
          .where(eq(liveEvents.sessionId, sessionId))
          .orderBy(asc(liveEvents.seq))
      )
        .filter((entry) => (entry.body as { type?: string }).type === "live.segment")
        .map((entry) => segmentOfEvent({ seq: Number(entry.seq), type: "live.segment", body: entry.body }));
      const transcript = liveTranscript(current, segments, this.engine());
      if (transcript) await this.library.record(row.accountId, transcript, tx);
      const endedAt = this.now();
      await tx
        .update(liveSessions)
        .set({
          status: outcome.kind === "failed" ? "failed" : outcome.reason === "stopped" ? "stopped" : "ended",
          endReason: outcome.kind === "ended" ? outcome.reason : null,
          error: outcome.kind === "failed" ? { ...outcome.failure } : null,
          endedAt,
          audioSeconds: current.audioSeconds,
          timelineSeconds: current.timelineSeconds,
          leaseOwner: null,
          leaseExpiresAt: null,
          partial: null,
          libraryEntry: transcript ? `${transcript.platform}:${transcript.video_id}` : null,
          updatedAt: endedAt,
        })
        .where(eq(liveSessions.id, sessionId));
      if (event) await this.webhooks.lifecycle(current, event, tx);
    });
  }
}

/** What a session's holder knows of its progress beyond its row: audio recognised since its last write. */
export interface SessionProgress {
  audioSeconds: number;
  timelineSeconds: number;
}
