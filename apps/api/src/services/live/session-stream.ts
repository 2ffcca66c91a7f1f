import { eq, sql } from "drizzle-orm";
import type { LiveRecognition, SpeechSegment } from "../../adapters/asr/index.ts";
import {
  type LivePiece,
  type LiveReadOptions,
  type LiveStreamEnd,
  readHls,
  readIcecast,
} from "../../adapters/live/live-stream.ts";
import { SAMPLE_RATE } from "../../adapters/media/decoder.ts";
import { ApiError } from "../../errors.ts";
import type { Logger } from "../../logger.ts";
import type { LiveResolution, LiveStreamRef } from "../../sources/live/index.ts";
import { liveSessions } from "../../store/schema.ts";
import { toApiError } from "../failures/index.ts";
import { type DecodedSamples, Decoding, type FedPosition, SessionEnds } from "./live-decoding.ts";
import type { LiveOutcome } from "./live-endings.ts";
import type { LiveLease, LiveRunnerOptions } from "./live-run-settings.ts";
import { LeaseLost, type LiveSessionRow } from "./live-store.ts";
import { segmentFields } from "./live-views.ts";

/** The operation every minute of a session is charged under, with the request that asked for it. */
const chargedOperation = "POST /live";

/** Samples in a billed minute. */
const minuteSamples = 60 * SAMPLE_RATE;

/** The stream of one run: reading, decoding, recognising, recording. */
export class SessionStream implements DecodedSamples {
  /** Samples recognised in the session, on every worker: what is billed. */
  private audioSamples: number;
  private chargedMinutes: number;
  /** Where the last committed segment ends on the timeline. */
  private committedEnd: number;
  private fed: FedPosition;
  private partialVersion = 0;
  private lastPartialText = "";
  private lastPartialAt = 0;
  private webhookTimer: NodeJS.Timeout | undefined;
  /** Aborted when the run must stop reading: its reason is why. */
  private readonly halt = new AbortController();

  constructor(
    private readonly options: LiveRunnerOptions,
    private readonly row: LiveSessionRow,
    private readonly resumed: boolean,
    private readonly resolution: Extract<LiveResolution, { state: "live" }>,
    private readonly lease: LiveLease,
    private readonly log: Logger,
  ) {
    this.audioSamples = Math.round(row.audioSeconds * SAMPLE_RATE);
    this.chargedMinutes = row.chargedMinutes;
    this.committedEnd = row.timelineSeconds;
    const position = row.position as { sequence?: number | null; end?: number } | null;
    this.fed = { sequence: position?.sequence ?? null, end: position?.end ?? row.timelineSeconds };
  }

  async run(): Promise<void> {
    const { lease } = this;
    const onLease = () => this.halt.abort(lease.signal.reason);
    const onStop = () => this.halt.abort(new SessionEnds({ kind: "ended", reason: "stopped" }));
    lease.signal.addEventListener("abort", onLease, { once: true });
    lease.stopRequested.addEventListener("abort", onStop, { once: true });
    if (lease.signal.aborted) onLease();
    if (lease.stopRequested.aborted) onStop();
    let decoding: Decoding | null = null;
    try {
      const takeoverFrom = this.resumed ? this.committedEnd : null;
      let offset = this.resumed ? this.resumeOffset() : 0;
      if (!this.resumed) await this.recordStart();
      let pendingTakeover = takeoverFrom;
      const reader = this.reader();
      let end: LiveStreamEnd;
      for (;;) {
        const step = await reader.next();
        if (step.done) {
          end = step.value;
          break;
        }
        const piece = step.value;
        if (piece.kind === "gap") {
          if (piece.reason === "takeover") {
            offset += piece.seconds;
            continue;
          }
          const from = decoding ? await this.finishDecoding(decoding) : offset;
          decoding = null;
          offset = from + piece.seconds;
          await this.recordGap(from, offset, piece.reason);
          continue;
        }
        if (pendingTakeover !== null) {
          if (offset - pendingTakeover > 0.05) await this.recordGap(pendingTakeover, offset, "takeover");
          pendingTakeover = null;
        }
        if (piece.discontinuity && decoding) {
          offset = await this.finishDecoding(decoding);
          decoding = null;
        }
        decoding ??= new Decoding(this, this.options.engine, offset, this.fed.sequence, this.halt.signal, (reason) =>
          this.halt.abort(reason),
        );
        await decoding.write(piece);
      }
      if (decoding) await this.finishDecoding(decoding);
      decoding = null;
      this.log.info({ end }, "live stream over");
      await this.end({ kind: "ended", reason: "stream_ended" });
    } catch (error) {
      const reason = this.halt.signal.aborted ? this.halt.signal.reason : error;
      if (reason instanceof SessionEnds) {
        // What was already fed is paid for: it is recognised to its end before the session ends.
        if (decoding) await decoding.settle();
        await this.end(reason.outcome);
        return;
      }
      decoding?.abort();
      throw reason;
    } finally {
      clearTimeout(this.webhookTimer);
      lease.signal.removeEventListener("abort", onLease);
      lease.stopRequested.removeEventListener("abort", onStop);
    }
  }

  /** The stream's pieces, read through the public fetch; a platform's expired playlist is resolved again. */
  private reader(): AsyncGenerator<LivePiece, LiveStreamEnd> {
    const { settings, fetch, sources } = this.options;
    const readOptions: LiveReadOptions = {
      fetch,
      signal: this.halt.signal,
      silenceMs: settings.silenceMs,
      maxBytesPerMinute: settings.maxBytesPerMinute,
      resumeAfter: this.resumed ? this.fed.sequence : null,
      ...(settings.minPollMs === undefined ? {} : { minPollMs: settings.minPollMs }),
      reresolve: async () => {
        const fresh = await sources
          .resolve(this.row.stream as unknown as LiveStreamRef, {
            signal: this.halt.signal,
            accountId: this.row.accountId,
          })
          .catch((error: unknown) => {
            throw toApiError(error);
          });
        return fresh.state === "live" ? fresh.address : null;
      },
    };
    return this.resolution.reading === "hls"
      ? readHls(this.resolution.address, readOptions)
      : readIcecast(this.resolution.address, readOptions);
  }

  /**
   * Where a session taken over resumes on its timeline: after the media its last holder fed, or,
   * for a stream without sequence numbers, after the time that passed since its last write.
   */
  private resumeOffset(): number {
    const position = this.row.position as { sequence?: number | null; end?: number; at?: string } | null;
    if (position?.sequence != null && position.end !== undefined) return position.end;
    const since = position?.at ? (this.options.now().getTime() - Date.parse(position.at)) / 1000 : 0;
    return Math.max(this.committedEnd, (position?.end ?? this.committedEnd) + Math.max(0, since));
  }

  /** Ends the decoding's input, recognises what it holds, and answers where its audio ends on the timeline. */
  private async finishDecoding(decoding: Decoding): Promise<number> {
    await decoding.finish();
    return decoding.end();
  }

  /** Called for each 0.1 s of audio before it is recognised: charges the minute it starts; a reason to end instead. */
  async pay(samples: number): Promise<void> {
    const needed = Math.ceil((this.audioSamples + samples) / minuteSamples);
    if (needed <= this.chargedMinutes) return;
    if (this.chargedMinutes >= this.row.maxMinutes) throw new SessionEnds({ kind: "ended", reason: "max_minutes" });
    const { credits, sessions } = this.options;
    try {
      await sessions.withLease(this.row.id, this.lease.owner, async (tx) => {
        await credits.charge(
          { accountId: this.row.accountId, credits: 1, operation: chargedOperation, requestId: this.row.requestId },
          tx,
        );
        await tx
          .update(liveSessions)
          .set({ chargedMinutes: sql`${liveSessions.chargedMinutes} + 1`, ...this.progress() })
          .where(eq(liveSessions.id, this.row.id));
      });
    } catch (error) {
      if (error instanceof ApiError && error.code === "insufficient_credits") {
        throw new SessionEnds({ kind: "ended", reason: "insufficient_credits" });
      }
      throw error;
    }
    this.chargedMinutes += 1;
  }

  /** Counts audio recognised, and the media fed so far. */
  heard(samples: number, fed: FedPosition): void {
    this.audioSamples += samples;
    this.fed = fed;
  }

  /** Commits final segments (times from the decoding's start, moved by `offset`), then announces them. */
  async commit(segments: SpeechSegment[], offset: number): Promise<void> {
    const spoken = segments.filter((segment) => segment.text.trim() !== "");
    if (spoken.length === 0) return;
    const fields = spoken.map((segment) => segmentFields(segment, offset));
    const last = fields.at(-1);
    if (last) this.committedEnd = Math.max(this.committedEnd, last.start + last.duration);
    const nextWebhookMs = await this.options.sessions.withLease(this.row.id, this.lease.owner, async (tx, record) => {
      await record(fields.map((segment) => ({ type: "live.segment" as const, fields: segment })));
      const [row] = await tx
        .update(liveSessions)
        .set({ ...this.progress(), partial: null })
        .where(eq(liveSessions.id, this.row.id))
        .returning();
      return row ? this.options.webhooks.flushSegments(row, tx) : null;
    });
    this.lastPartialText = "";
    this.scheduleWebhook(nextWebhookMs);
  }

  /** Stores the words of the utterance in progress when they changed, at most every `partialIntervalMs`. */
  async partial(recognition: LiveRecognition, offset: number): Promise<void> {
    if (!this.row.partials) return;
    const nowMs = Date.now();
    if (nowMs - this.lastPartialAt < (this.options.settings.partialIntervalMs ?? 500)) return;
    const words = recognition.partial();
    if (!words || words.text === this.lastPartialText) return;
    this.lastPartialAt = nowMs;
    this.lastPartialText = words.text;
    this.partialVersion += 1;
    const partial = {
      version: this.partialVersion,
      start: Math.round((words.start + offset) * 1000) / 1000,
      text: words.text,
    };
    await this.options.sessions.withLease(this.row.id, this.lease.owner, async (tx) => {
      await tx
        .update(liveSessions)
        .set({ ...this.progress(), partial })
        .where(eq(liveSessions.id, this.row.id));
    });
  }

  private async recordStart(): Promise<void> {
    await this.options.sessions.withLease(this.row.id, this.lease.owner, async (tx, record) => {
      const [event] = await record([{ type: "live.started", fields: { source: this.row.source } }]);
      const now = this.options.now();
      await tx
        .update(liveSessions)
        .set({ status: "live", startedAt: now, updatedAt: now })
        .where(eq(liveSessions.id, this.row.id));
      if (event) await this.options.webhooks.lifecycle(this.row, event, tx);
    });
  }

  private async recordGap(from: number, to: number, reason: "takeover" | "fell_behind" | "reconnected"): Promise<void> {
    const round = (seconds: number) => Math.round(seconds * 1000) / 1000;
    this.log.info({ from, to, reason }, "live stream has a gap");
    this.committedEnd = Math.max(this.committedEnd, to);
    await this.options.sessions.withLease(this.row.id, this.lease.owner, async (tx, record) => {
      const [event] = await record([{ type: "live.gap", fields: { from: round(from), to: round(to), reason } }]);
      const [row] = await tx
        .update(liveSessions)
        .set(this.progress())
        .where(eq(liveSessions.id, this.row.id))
        .returning();
      if (event && row) await this.options.webhooks.lifecycle(row, event, tx);
    });
  }

  private async end(outcome: LiveOutcome): Promise<void> {
    await this.options.endings.end(this.row.id, this.lease.owner, outcome, {
      audioSeconds: this.audioSamples / SAMPLE_RATE,
      timelineSeconds: this.committedEnd,
    });
  }

  /** What the session's row records of the run's progress at each write. */
  private progress() {
    const now = this.options.now();
    return {
      audioSeconds: this.audioSamples / SAMPLE_RATE,
      timelineSeconds: this.committedEnd,
      position: { sequence: this.fed.sequence, end: this.fed.end, at: now.toISOString() },
      updatedAt: now,
    };
  }

  /** Delivers the batched segments when their delivery falls due, if no later segment does it first. */
  private scheduleWebhook(dueInMs: number | null): void {
    clearTimeout(this.webhookTimer);
    if (dueInMs === null) return;
    this.webhookTimer = setTimeout(() => {
      this.options.sessions
        .withLease(this.row.id, this.lease.owner, async (tx) => {
          const [row] = await tx.select().from(liveSessions).where(eq(liveSessions.id, this.row.id));
          return row ? this.options.webhooks.flushSegments(row, tx) : null;
        })
        .then((next) => this.scheduleWebhook(next))
        .catch((err: unknown) => {
          if (!(err instanceof LeaseLost))
            this.log.warn({ err }, "batched live segments could not be handed to the webhook");
        });
    }, dueInMs);
    this.webhookTimer.unref();
  }
}
