import { once } from "node:events";
import { PassThrough } from "node:stream";
import { eq, sql } from "drizzle-orm";
import type { LiveRecognition, SpeechEngine, SpeechSegment } from "../../adapters/asr/index.ts";
import {
  type LivePiece,
  type LiveReadOptions,
  type LiveStreamEnd,
  readHls,
  readIcecast,
} from "../../adapters/live/live-stream.ts";
import { decodeAudio, SAMPLE_RATE } from "../../adapters/media/decoder.ts";
import type { PublicFetch } from "../../adapters/net/public-fetch.ts";
import { ApiError } from "../../errors.ts";
import type { Logger } from "../../logger.ts";
import type { LiveResolution, LiveSources, LiveStreamRef } from "../../sources/live/index.ts";
import { liveSessions } from "../../store/schema.ts";
import type { Credits } from "../accounts/credits.ts";
import { isAnswerable, toApiError } from "../failures/source-failures.ts";
import type { LiveEndings, LiveOutcome } from "./live-endings.ts";
import { type ClaimedSession, LeaseLost, type LiveSessionRow, type LiveStore } from "./live-store.ts";
import { failureOf, segmentFields } from "./live-views.ts";
import type { LiveWebhooks } from "./live-webhooks.ts";

/** The operation every minute of a session is charged under, with the request that asked for it. */
const chargedOperation = "POST /live";

/** Samples in a piece fed to the recognizer and billed: 0.1 s, as the engine takes them. */
const pieceSamples = SAMPLE_RATE / 10;

/** Samples in a billed minute. */
const minuteSamples = 60 * SAMPLE_RATE;

/** How long a worker waits before resolving again a stream that failed for a while (a platform's hiccup). */
const retryResolveMs = 15_000;

/** The longest a waiting session sleeps before its broadcast is looked at again. */
const maxWaitingMs = 5 * 60_000;

/** How soon a waiting broadcast is looked at again at the earliest, when the platform says no start or a past one. */
const defaultWaitingRecheckMs = 30_000;

/** How a worker reads and recognises streams (`VERBATIM_LIVE_*`). */
export interface LiveRunSettings {
  /** Milliseconds without new media after which a stream is over. */
  silenceMs: number;
  /** Bytes a stream may bring per minute of media. */
  maxBytesPerMinute: number;
  /** The least time between two stored partials of a session, in milliseconds; default 500. */
  partialIntervalMs?: number;
  /** The shortest wait between two reads of a playlist; default the reader's. */
  minPollMs?: number;
  /** How soon an announced broadcast that has not started is looked at again at the earliest; default 30 s. */
  waitingRecheckMs?: number;
}

export interface LiveRunnerOptions {
  sessions: LiveStore;
  endings: LiveEndings;
  webhooks: LiveWebhooks;
  sources: LiveSources;
  engine: SpeechEngine;
  /** The public fetch the streams are read through, under the public-address rule. */
  fetch: PublicFetch;
  credits: Credits;
  now: () => Date;
  logger: Logger;
  settings: LiveRunSettings;
}

/** What the worker tells a run of the lease it holds. */
export interface LiveLease {
  owner: string;
  /** Aborts when the lease is lost or the worker stops: the run stops at once and writes nothing more. */
  signal: AbortSignal;
  /** Aborts when `DELETE /live/{id}` asked the session to stop: the run ends it as `stopped`. */
  stopRequested: AbortSignal;
}

/** A reason a run stops feeding its stream: the session ends so. */
class SessionEnds extends Error {
  constructor(readonly outcome: LiveOutcome) {
    super(outcome.kind === "ended" ? outcome.reason : outcome.failure.message);
  }
}

/**
 * One session on the worker holding its lease: its stream resolved, read from the live edge (or
 * after the segment it was last at, when taken over), piped to ffmpeg, recognised as it plays;
 * each final segment committed before it is announced, each minute charged as it starts, and the
 * session ended when the stream ends, `max_minutes` pass, the balance runs out or a stop is asked.
 */
export class LiveRunner {
  constructor(private readonly options: LiveRunnerOptions) {}

  /** Runs the claimed session until it ends, waits, or the lease is lost; never throws. */
  async run(claimed: ClaimedSession, lease: LiveLease): Promise<void> {
    const { row } = claimed;
    const log = this.options.logger.child({ live_session: row.id });
    try {
      if (row.stopRequestedAt) {
        await this.options.endings.end(row.id, lease.owner, { kind: "ended", reason: "stopped" });
        return;
      }
      const resolution = await this.resolve(row, lease);
      if (resolution === null) return;
      if (resolution.state === "waiting") {
        const now = this.options.now().getTime();
        const soonest = now + (this.options.settings.waitingRecheckMs ?? defaultWaitingRecheckMs);
        const next = Math.min(Math.max(resolution.startsAt?.getTime() ?? 0, soonest), now + maxWaitingMs);
        await this.options.sessions.release(row.id, lease.owner, new Date(next));
        return;
      }
      if (resolution.state === "over") {
        await this.options.endings.end(row.id, lease.owner, { kind: "ended", reason: "stream_ended" });
        return;
      }
      await new SessionStream(this.options, row, claimed.resumed, resolution, lease, log).run();
    } catch (error) {
      if (error instanceof LeaseLost || lease.signal.aborted) {
        log.info({ reason: String(lease.signal.reason ?? error) }, "live session left to another worker");
        return;
      }
      log.error({ err: error }, "live session failed");
      const failure = isAnswerable(error)
        ? failureOf(toApiError(error))
        : failureOf(
            new ApiError("internal_error", "The live session failed unexpectedly; what it transcribed is kept."),
          );
      await this.options.endings
        .end(row.id, lease.owner, { kind: "failed", failure })
        .catch((err: unknown) => log.error({ err }, "a failed live session could not be recorded as failed"));
    }
  }

  /**
   * What the stream is now; null when the session was dealt with: failed (a permanent error), or
   * left for a later attempt (a transient one, while the stream has not been silent for long).
   */
  private async resolve(row: LiveSessionRow, lease: LiveLease): Promise<LiveResolution | null> {
    try {
      return await this.options.sources.resolve(row.stream as unknown as LiveStreamRef, {
        signal: lease.signal,
        accountId: row.accountId,
      });
    } catch (error) {
      const mapped = toApiError(error);
      const lastHeard = (row.position as { at?: string } | null)?.at ?? (row.startedAt ?? row.createdAt).toISOString();
      const silentMs = this.options.now().getTime() - Date.parse(lastHeard);
      if (mapped.number < 5000 || silentMs > this.options.settings.silenceMs) throw mapped;
      await this.options.sessions.release(row.id, lease.owner, new Date(this.options.now().getTime() + retryResolveMs));
      return null;
    }
  }
}

/** Where the reader stood at the last write: the newest media fed, and where it ends on the timeline. */
interface FedPosition {
  sequence: number | null;
  end: number;
}

/** The stream of one run: reading, decoding, recognising, recording. */
class SessionStream {
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

/**
 * One run of ffmpeg and the recognizer between two breaks of the timeline (a gap, a
 * discontinuity): media written in, samples recognised as they come out, 0.1 s at a time, each
 * piece paid for before it is recognised. A reason to stop found while recognising (the end of
 * the balance, `max_minutes`, a decoder that fails) halts the whole run through `onHalt`.
 */
class Decoding {
  private readonly input = new PassThrough();
  private readonly decoder = new AbortController();
  private readonly recognition: LiveRecognition;
  private readonly recognised: Promise<void>;
  private samples = 0;
  /** Where the media written so far ends on the timeline, by its declared durations. */
  private fedEnd: number;
  private fedSequence: number | null;

  constructor(
    private readonly stream: SessionStream,
    engine: SpeechEngine,
    private readonly offset: number,
    fedSequence: number | null,
    private readonly halt: AbortSignal,
    private readonly onHalt: (reason: unknown) => void,
  ) {
    if (!engine.startLive) {
      throw new ApiError("audio_ineligible", "This server's speech engine does not transcribe live streams.");
    }
    this.recognition = engine.startLive();
    this.fedEnd = offset;
    this.fedSequence = fedSequence;
    const decoded = decodeAudio(this.input, { signal: this.decoder.signal, live: true });
    this.recognised = this.recognise(decoded.samples);
    // Its failure halts the run through `onHalt`; the run reads it again where it settles the decoding.
    this.recognised.catch(() => undefined);
  }

  async write(piece: Extract<LivePiece, { kind: "media" }>): Promise<void> {
    if (!this.input.write(piece.bytes)) {
      await Promise.race([once(this.input, "drain", { signal: this.halt }), this.recognised]);
    }
    this.halt.throwIfAborted();
    this.fedSequence = piece.sequence ?? this.fedSequence;
    this.fedEnd = piece.seconds === null ? this.end() : this.fedEnd + piece.seconds;
  }

  /** Ends the input and waits until what it held is recognised and committed. */
  async finish(): Promise<void> {
    if (!this.input.writableEnded) this.input.end();
    await this.recognised;
  }

  /** As `finish`, answering the reason to end the session that recognition met, if it met one. */
  async settle(): Promise<SessionEnds | null> {
    try {
      await this.finish();
      return null;
    } catch (error) {
      if (error instanceof SessionEnds) return error;
      throw error;
    }
  }

  abort(): void {
    this.decoder.abort();
    this.input.destroy();
  }

  /** Where the audio recognised so far ends on the timeline. */
  end(): number {
    return this.offset + this.samples / SAMPLE_RATE;
  }

  private async recognise(samples: AsyncIterable<Float32Array>): Promise<void> {
    let carried = new Float32Array(0);
    try {
      for await (const chunk of samples) {
        // ffmpeg's output waiting in the pipe is read without the event loop turning: let timers (the
        // lease's renewal) and sockets run between chunks, however far behind the live edge this is.
        await new Promise((resolve) => setImmediate(resolve));
        const all = carried.length > 0 ? joined(carried, chunk) : chunk;
        let at = 0;
        for (; at + pieceSamples <= all.length; at += pieceSamples) {
          if (!(await this.hear(all.subarray(at, at + pieceSamples)))) return;
        }
        carried = all.slice(at);
      }
      if (carried.length > 0 && !(await this.hear(carried))) return;
    } catch (error) {
      if (error instanceof SessionEnds) {
        // The audio already fed is paid for: the utterance in progress keeps its words.
        await this.stream.commit(this.recognition.finish(), this.offset);
      } else {
        this.abort();
      }
      if (!this.halt.aborted) this.onHalt(error);
      throw error;
    }
    await this.stream.commit(this.recognition.finish(), this.offset);
  }

  /** Pays for, then recognises, one piece; false when the run was halted for a reason other than ending the session. */
  private async hear(piece: Float32Array): Promise<boolean> {
    if (this.halt.aborted && !(this.halt.reason instanceof SessionEnds)) return false;
    await this.stream.pay(piece.length);
    const ended = this.recognition.accept(piece);
    this.samples += piece.length;
    this.stream.heard(piece.length, { sequence: this.fedSequence, end: Math.max(this.fedEnd, this.end()) });
    if (ended.length > 0) await this.stream.commit(ended, this.offset);
    else await this.stream.partial(this.recognition, this.offset);
    return true;
  }
}

function joined(first: Float32Array, second: Float32Array): Float32Array {
  const all = new Float32Array(first.length + second.length);
  all.set(first);
  all.set(second, first.length);
  return all;
}
