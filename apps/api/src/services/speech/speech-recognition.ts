import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SpeechEngine, SpeechTranscript } from "../../adapters/asr/index.ts";
import { DownloadCapReached } from "../../adapters/net/media-download.ts";
import { ApiError } from "../../errors.ts";
import { newId } from "../../ids.ts";
import type { Logger } from "../../logger.ts";
import type { PlatformSource, SourceDetails, SourceRef } from "../../sources/platform-source.ts";
import type { SourceRegistry } from "../../sources/registry.ts";
import { whenReachable } from "../../store/retry-until-reachable.ts";
import type { StoredItem } from "../../store/statements/deliver-stored.ts";
import type { Credits } from "../accounts/credits.ts";
import { type PlanName, plans } from "../accounts/plans.ts";
import { pricing } from "../accounts/pricing.ts";
import { isAnswerable, toApiError } from "../failures/source-failures.ts";
import { chargeOf, KeptTranscripts } from "../kept/kept-transcripts.ts";
import {
  fieldsOf,
  keptFieldsOf,
  keptSpeechTranscript,
  libraryDeliveryOf,
  roundedSeconds,
  storedItemOf,
  type TranscriptFields,
} from "../kept/transcript-fields.ts";
import { callOf, type TranscriptOutcome, type TranscriptQuery } from "../kept/transcript-requests.ts";
import { type FullTranscript, TranscriptStore } from "../kept/transcript-store.ts";
import {
  audioTooLong,
  fullTranscript,
  inspect,
  maxAudioSeconds,
  recognise,
  richestAudioBytesPerSecond,
  surelyLongerThan,
} from "./speech-media.ts";
import { type JobFailure, type TranscriptJobRow, TranscriptJobs } from "./transcript-jobs.ts";

/** How often, at most, a running job writes its progress: polls read it, every write costs a statement. */
const progressIntervalMs = 1_000;

/** How long a worker waits for the row of a job it was handed: the API queues the message just before it writes the row. */
const rowArrivalMs = 10_000;

/**
 * How long an attempt waits for a store that went away, at its start and before recording its
 * result, instead of failing: an outage of seconds must not cost a transcription its attempt.
 */
const storeOutageToleranceMs = 60_000;

/** Seconds a client is told to wait when too many jobs are queued. */
const overloadedRetryAfterSeconds = 30;

/**
 * What a job's worker needs, stored on the job row. Stream and signed media addresses expire, so
 * the media is named by what the source that serves its platform downloads, and resolved again.
 */
interface JobWork {
  media: SourceRef;
  /** Where the transcript is kept. */
  stored: StoredItem;
  fields: TranscriptFields;
}

/** One attempt of a job, as the queue runs it. */
export interface JobAttempt {
  /** Aborted when the queue takes the job back (its heartbeat lapsed); the attempt then stops without a trace. */
  signal: AbortSignal;
  /** No retry follows: a transient failure now fails the job instead of being retried. */
  finalAttempt: boolean;
}

/** The message of a transcription: the job row does the talking; the account and plan group it. */
export interface TranscriptionMessage {
  jobId: string;
  accountId: string;
  plan: PlanName;
  /**
   * Attempts the job ran before it was handed back for want of a free slot: a hand-back is a new
   * queue job, and the job's attempts count across them, so its last attempt comes.
   */
  attemptsBefore?: number;
}

/** A queued message, until its job is admitted. */
export interface QueuedTranscription {
  /** Removes the message before a worker takes it. */
  withdraw(): Promise<void>;
}

/** Hands accepted jobs to the workers, wherever they run. */
export interface TranscriptionQueue {
  /**
   * Queues the job under its account and plan, so the plan's concurrency holds across every
   * worker. Answers how to take the message back when the job is not admitted after all.
   */
  enqueue(job: TranscriptionMessage): Promise<QueuedTranscription>;
  /** A cheap round trip to the queue, for the deep health check. */
  check(): Promise<void>;
}

export interface SpeechRecognitionOptions {
  /** The sources a job's media is downloaded from, by its platform. */
  sources: SourceRegistry;
  store: TranscriptStore;
  credits: Credits;
  jobs: TranscriptJobs;
  engine: SpeechEngine;
  queue: TranscriptionQueue;
  logger: Logger;
  /** Media shorter than this is transcribed within the request; 0 turns inline transcription off. */
  inlineAudioSeconds: number;
  /** Unfinished jobs beyond which new ones are refused. */
  maxQueuedJobs: number;
  /** Where media is downloaded while it is transcribed; default the OS's temporary directory. */
  workDir?: string;
}

/**
 * Speech recognition of any source's media: from the store when the engine's model transcribed
 * the item before, within the request when the media is short, else as a job that a worker runs.
 * It costs 1 credit per started minute, charged on delivery; failures cost nothing.
 */
export class SpeechRecognition {
  private readonly kept: KeptTranscripts;
  private readonly speechModel: string;

  constructor(private readonly options: SpeechRecognitionOptions) {
    this.kept = new KeptTranscripts(options.credits);
    this.speechModel = TranscriptStore.speechModelOf(options.engine.info);
  }

  /** The language the engine recognises, or null when it detects it. */
  get language(): string | null {
    return this.options.engine.info.language;
  }

  /** The transcript the engine made of an item named offline (`SourceRef.itemId`), served before resolving it; null when none. */
  async keptOf(query: TranscriptQuery, ref: SourceRef & { itemId: string }): Promise<TranscriptOutcome | null> {
    const found = await this.options.store.findSpeech({ platform: ref.platform, item: ref.itemId }, this.speechModel);
    if (!found) return null;
    return this.kept.serve(
      query,
      {
        lookup: { by: "id", id: found.id },
        credits: pricing.speechRecognition(found.durationSeconds),
        delivery: { platform: ref.platform, video_id: ref.itemId, url: ref.url, source: "audio" },
        fields: { title: found.title, channel: found.channel, durationSeconds: roundedSeconds(found.durationSeconds) },
      },
      (stored) => keptSpeechTranscript(keptFieldsOf(ref, stored), stored),
    );
  }

  /**
   * The item's speech, transcribed: from the store when made before and the source lets this
   * request have it (the web's media must still answer it), else recognised.
   */
  async transcribe(query: TranscriptQuery, source: PlatformSource, details: SourceDetails): Promise<TranscriptOutcome> {
    const fields = fieldsOf(details, this.language);
    const stored = storedItemOf(details);
    const found = await this.options.store.findSpeech(stored, this.speechModel);
    if (found && (await source.mayServeKept(details, callOf(query)))) {
      const served = await this.kept.serve(
        query,
        {
          lookup: { by: "id", id: found.id },
          credits: pricing.speechRecognition(found.durationSeconds),
          delivery: libraryDeliveryOf(fields, "audio"),
          fields: {
            title: fields.title,
            channel: fields.channel,
            durationSeconds: roundedSeconds(found.durationSeconds),
          },
        },
        (kept) => keptSpeechTranscript(fields, kept),
      );
      if (served) return served;
    }
    return this.recogniseNew(query, source, details, {
      media: details.media ?? { ...details.ref, url: details.url },
      stored,
      fields,
    });
  }

  /**
   * Runs one attempt of a job: download, checks, recognition with progress, then the completion
   * that charges once. An input problem fails the job; a transient one is thrown for the queue to
   * retry, unless this is the last attempt.
   */
  async runJob(jobId: string, attempt: JobAttempt): Promise<void> {
    const { jobs, logger } = this.options;
    const job = await whenReachable(() => this.awaitRow(jobId, attempt.signal), storeOutageToleranceMs, attempt.signal);
    if (!job) {
      logger.warn({ job_id: jobId }, "a queued transcription has no job row; the request that queued it failed");
      return;
    }
    if (job.status !== "processing") return;
    const work = TranscriptJobs.workOf(job) as unknown as JobWork;
    try {
      const source = this.options.sources.sourceOf(work.media.platform);
      if (!source) {
        throw new ApiError(
          "unsupported_platform",
          `This server no longer reads ${work.media.platform}; the job cannot run.`,
        );
      }
      const transcribed = await this.withDownload(
        source,
        work.media,
        { maxBytes: Number.MAX_SAFE_INTEGER, signal: attempt.signal, accountId: job.accountId },
        async (path) => {
          const duration = await inspect(path, attempt.signal);
          return recognise(this.options.engine, path, {
            signal: attempt.signal,
            onProgress: this.progressReporter(jobId, duration),
          });
        },
      );
      if (!transcribed) throw new Error("recognition stopped before the end");
      const transcript = fullTranscript(work.fields, this.options.engine, transcribed);
      // Completing twice is harmless: only a job still processing is completed and charged.
      const outcome = await whenReachable(
        () =>
          jobs.complete(job, {
            transcript,
            durationSeconds: transcribed.duration,
            credits: pricing.speechRecognition(transcribed.duration),
            stored: work.stored,
          }),
        storeOutageToleranceMs,
        attempt.signal,
      );
      logger.info({ job_id: jobId, outcome: outcome.kind }, "transcription job finished");
    } catch (error) {
      if (attempt.signal.aborted) throw error;
      const failure = jobFailureOf(error, attempt.finalAttempt);
      if (!failure) throw error;
      if (failure.code === "internal_error") logger.error({ err: error, job_id: jobId }, "transcription job failed");
      await jobs.fail(job, failure);
    }
  }

  /** Fails a job whose every attempt died without an answer (the queue's dead letter). */
  async abandonJob(jobId: string): Promise<void> {
    const job = await this.options.jobs.find(jobId);
    if (!job) return;
    const failed = await this.options.jobs.fail(job, {
      code: "internal_error",
      message:
        "The job's worker stopped before finishing, on every attempt. Nothing was charged; send the request again.",
    });
    if (failed) this.options.logger.error({ job_id: jobId }, "transcription job abandoned after its attempts died");
  }

  /** Transcribes an item not transcribed before: within the request when its media is short, else as a job. */
  private async recogniseNew(
    query: TranscriptQuery,
    source: PlatformSource,
    details: SourceDetails,
    work: JobWork,
  ): Promise<TranscriptOutcome> {
    const declared = details.durationSeconds;
    if (declared !== null && declared > maxAudioSeconds) throw audioTooLong(declared);
    // The declared duration bounds the price before any work; unknown, the minimum does.
    this.options.credits.requireAtLeast(
      query.balance,
      declared === null ? pricing.minimum() : pricing.speechRecognition(declared),
    );
    const inline = this.options.inlineAudioSeconds;
    const mayBeShort = declared === null ? !surelyLongerThan(details.declaredAudioBytes, inline) : declared < inline;
    let measuredSeconds: number | null = null;
    if (inline > 0 && mayBeShort) {
      const inlineAttempt = await this.transcribeInline(source, details, work.media, inline, query.accountId);
      if (inlineAttempt.kind === "transcribed") {
        const { transcribed } = inlineAttempt;
        const transcript = fullTranscript(work.fields, this.options.engine, transcribed);
        await this.options.store.keepSpeech(work.stored, { transcript, durationSeconds: transcribed.duration });
        return this.deliver(query, transcript, transcribed.duration);
      }
      measuredSeconds = inlineAttempt.durationSeconds;
    }
    return this.startJob(query, details, work, measuredSeconds ?? declared);
  }

  /**
   * Transcribes media within the request when it is short. Neither the container's declared
   * length nor its size is trusted: the download stops at what the inline limit could hold at the
   * richest audio rate, and decoding stops at the limit, so long media costs the request little
   * before it becomes a job.
   */
  private async transcribeInline(
    source: PlatformSource,
    details: SourceDetails,
    media: SourceRef,
    inlineSeconds: number,
    accountId: string,
  ): Promise<
    { kind: "transcribed"; transcribed: SpeechTranscript } | { kind: "long"; durationSeconds: number | null }
  > {
    try {
      return await this.withDownload(
        source,
        media,
        { maxBytes: inlineSeconds * richestAudioBytesPerSecond, accountId, resolved: details },
        async (
          path,
        ): Promise<
          { kind: "transcribed"; transcribed: SpeechTranscript } | { kind: "long"; durationSeconds: number | null }
        > => {
          const duration = await inspect(path);
          if (duration === null || duration >= inlineSeconds) return { kind: "long", durationSeconds: duration };
          const transcribed = await recognise(this.options.engine, path, { stopAfterSeconds: inlineSeconds });
          return transcribed === null ? { kind: "long", durationSeconds: null } : { kind: "transcribed", transcribed };
        },
      );
    } catch (error) {
      if (error instanceof DownloadCapReached) return { kind: "long", durationSeconds: null };
      throw error;
    }
  }

  private async deliver(query: TranscriptQuery, transcript: FullTranscript, durationSeconds: number) {
    const creditsSpent = pricing.speechRecognition(durationSeconds);
    const balance = await this.options.credits.charge(chargeOf(query, creditsSpent));
    return { kind: "transcript" as const, transcript, creditsSpent, balance };
  }

  /** Queues a job, admitted for the account with the price its known length (declared or measured) gives. */
  private async startJob(
    query: TranscriptQuery,
    details: SourceDetails,
    work: JobWork,
    knownSeconds: number | null,
  ): Promise<TranscriptOutcome> {
    query.signal?.throwIfAborted();
    const { jobs, queue, maxQueuedJobs } = this.options;
    const unfinished = await jobs.unfinishedCount();
    if (unfinished >= maxQueuedJobs) {
      throw new ApiError(
        "overloaded",
        `${unfinished} transcription jobs are waiting, the most this server queues. Nothing was charged; retry later.`,
        { retryAfterSeconds: overloadedRetryAfterSeconds },
      );
    }
    const jobId = newId("job");
    // The message goes first: a row without a message would stay `processing` forever, while a
    // message whose row never came (this process died in between) is dropped by the worker.
    const queued = await queue.enqueue({ jobId, accountId: query.accountId, plan: query.plan });
    const estimatedCredits = knownSeconds === null ? pricing.minimum() : pricing.speechRecognition(knownSeconds);
    const videoId = details.itemId;
    const platform = details.ref.platform;
    try {
      await jobs.admit(
        {
          id: jobId,
          accountId: query.accountId,
          videoId,
          platform,
          request: query.body,
          work: work as unknown as Record<string, unknown>,
          docsBaseUrl: query.docsBaseUrl,
          callbackUrl: query.callbackUrl,
          requestId: query.requestId,
          operation: query.operation,
          estimatedCredits,
        },
        { maxUnfinishedJobs: plans[query.plan].maxUnfinishedJobs },
      );
    } catch (error) {
      // A worker would drop the message after waiting for its row; taking it back spares that wait.
      await queued.withdraw().catch((err: unknown) => {
        this.options.logger.warn({ err, job_id: jobId }, "the message of a refused job could not be withdrawn");
      });
      throw error;
    }
    return { kind: "job", jobId, videoId, platform };
  }

  /** Downloads the media into a fresh temporary directory, runs `use` on the file, and removes it whatever happens. */
  private async withDownload<T>(
    source: PlatformSource,
    media: SourceRef,
    options: { maxBytes: number; signal?: AbortSignal; accountId: string; resolved?: SourceDetails },
    use: (path: string) => Promise<T>,
  ): Promise<T> {
    const dir = await mkdtemp(join(this.options.workDir ?? tmpdir(), "verbatim-media-"));
    try {
      const { path } = await source.download(media, dir, options);
      return await use(path);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /** Progress of a job, written at most once a second and never as done: completion says that. */
  private progressReporter(jobId: string, durationSeconds: number | null): ((seconds: number) => void) | undefined {
    if (durationSeconds === null || durationSeconds <= 0) return undefined;
    let lastWrite = 0;
    return (seconds) => {
      const now = Date.now();
      if (now - lastWrite < progressIntervalMs) return;
      lastWrite = now;
      const fraction = Math.min(0.99, Math.round((seconds / durationSeconds) * 100) / 100);
      this.options.jobs
        .reportProgress(jobId, fraction)
        .catch((err: unknown) => this.options.logger.warn({ err, job_id: jobId }, "progress not recorded"));
    };
  }

  /** The job's row; it may trail the queue message by a moment (see `startJob`). */
  private async awaitRow(jobId: string, signal: AbortSignal): Promise<TranscriptJobRow | null> {
    const deadline = Date.now() + rowArrivalMs;
    for (;;) {
      const job = await this.options.jobs.find(jobId);
      if (job || Date.now() > deadline || signal.aborted) return job;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

/**
 * The failure a job records for an error, or null when the error should be retried: input
 * problems (the 3xxx and 4xxx families) fail the job at once; upstream trouble (5xxx) and the
 * unexpected are retried until the last attempt, which records them.
 */
function jobFailureOf(error: unknown, finalAttempt: boolean): JobFailure | null {
  if (isAnswerable(error)) {
    const failure = toApiError(error);
    const transient = failure.number >= 5000;
    if (transient && !finalAttempt) return null;
    return {
      code: failure.code,
      message: failure.message,
      ...(failure.extra === undefined ? {} : { extra: failure.extra }),
    };
  }
  if (!finalAttempt) return null;
  return {
    code: "internal_error",
    message: "The transcription failed unexpectedly on every attempt. Nothing was charged; send the request again.",
  };
}
