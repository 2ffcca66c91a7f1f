import type { SpeechEngine } from "../../adapters/asr/index.ts";
import { ApiError } from "../../errors.ts";
import type { Logger } from "../../logger.ts";
import type { SourceRef } from "../../sources/platform-source.ts";
import type { SourceRegistry } from "../../sources/registry.ts";
import { whenReachable } from "../../store/retry-until-reachable.ts";
import type { StoredItem } from "../../store/statements/deliver-stored.ts";
import { pricing } from "../accounts/index.ts";
import { isAnswerable, toApiError } from "../failures/index.ts";
import type { TranscriptFields } from "../kept/index.ts";
import { type JobFailure, jobWorkOf, type TranscriptJobRow } from "./job-rows.ts";
import { fullTranscript, inspect, recognise, withDownload } from "./speech-media.ts";
import type { TranscriptJobs } from "./transcript-jobs.ts";

/** How often, at most, a running job writes its progress: polls read it, every write costs a statement. */
const progressIntervalMs = 1_000;

/** How long a worker waits for the row of a job it was handed: the API queues the message just before it writes the row. */
const rowArrivalMs = 10_000;

/**
 * How long an attempt waits for a store that went away, at its start and before recording its
 * result, instead of failing: an outage of seconds must not cost a transcription its attempt.
 */
const storeOutageToleranceMs = 60_000;

/**
 * What a job's worker needs, stored on the job row. Stream and signed media addresses expire, so
 * the media is named by what the source that serves its platform downloads, and resolved again.
 */
export interface JobWork {
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

export interface SpeechJobRunnerOptions {
  /** The sources a job's media is downloaded from, by its platform. */
  sources: SourceRegistry;
  jobs: TranscriptJobs;
  engine: SpeechEngine;
  logger: Logger;
  /** Where media is downloaded while it is transcribed; default the OS's temporary directory. */
  workDir?: string;
}

/**
 * The worker's side of speech recognition: one attempt of a queued job at a time, from the
 * download to the completion that charges once, and the end of a job whose attempts all died.
 */
export class SpeechJobRunner {
  constructor(private readonly options: SpeechJobRunnerOptions) {}

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
    const work = jobWorkOf(job) as unknown as JobWork;
    try {
      const source = this.options.sources.sourceOf(work.media.platform);
      if (!source) {
        throw new ApiError(
          "unsupported_platform",
          `This server no longer reads ${work.media.platform}; the job cannot run.`,
        );
      }
      const transcribed = await withDownload(
        this.options.workDir,
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
