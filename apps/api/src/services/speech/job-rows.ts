import type { ErrorCode, ResponseBody } from "@verbatim/contract";
import { ApiError, type ErrorExtra } from "../../errors.ts";
import type { DatabaseOrTransaction } from "../../store/database.ts";
import type { transcriptJobs } from "../../store/schema.ts";
import type { UsageBlock } from "../accounts/index.ts";
import type { FullTranscript } from "../kept/index.ts";
import { presentedTranscript } from "../words/index.ts";

export type TranscriptJobRow = typeof transcriptJobs.$inferSelect;

/** Why a job failed: an error of the table, shown to the client with its number and docs. */
export interface JobFailure {
  code: ErrorCode;
  message: string;
  extra?: ErrorExtra;
}

/** How a job ended, as the work waiting on it learns it. */
export type FinishedJob =
  | { status: "completed"; transcript: FullTranscript; usage: UsageBlock }
  | { status: "failed"; error: JobErrorBody };

/**
 * Work that waits on a job's outcome (a monitor's transcript of a new video), told in the
 * transaction that finishes the job: it commits with the job's move, exactly once.
 */
export interface JobFollower {
  jobFinished(job: TranscriptJobRow, outcome: FinishedJob, db: DatabaseOrTransaction): Promise<void>;
}

/** The `source` column: the orchestration's work description plus what the callback and the charge need. */
export interface JobSourceColumn {
  work: Record<string, unknown>;
  docs_base_url: string;
  /** The operation the job's charge is recorded under; absent on jobs admitted before it was kept. */
  operation?: string;
}

/** The `error` block of a failed job's poll: the envelope's error, as `ApiError.toBody` builds it. */
export type JobErrorBody = Extract<ResponseBody<"getTranscriptJob", 200>, { status: "failed" }>["error"];

/** The job's work description, as `create` stored it. */
export function jobWorkOf(job: TranscriptJobRow): Record<string, unknown> {
  return jobSourceOf(job).work;
}

/**
 * How the job ended, as its followers learn it; `null` while it is processing. A failure's
 * `error.docs` link starts with `docsBaseUrl`. The transcript's words are timed with
 * `words` (`word_timing` said), and carry no times without.
 */
export function jobOutcomeOf(job: TranscriptJobRow, docsBaseUrl: string, words = false): FinishedJob | null {
  switch (job.status) {
    case "completed":
      return {
        status: "completed",
        transcript: presentedTranscript(job.result as unknown as FullTranscript, words),
        usage: job.usage as unknown as UsageBlock,
      };
    case "failed":
      return {
        status: "failed",
        error: errorOfFailure(job.error as unknown as JobFailure).toBody(docsBaseUrl) as JobErrorBody,
      };
    default:
      return null;
  }
}

/** The error a failed job records, as the envelope answers it. */
export function errorOfFailure(failure: JobFailure): ApiError {
  return new ApiError(failure.code, failure.message, failure.extra === undefined ? {} : { extra: failure.extra });
}

export function jobSourceOf(job: TranscriptJobRow): JobSourceColumn {
  return job.source as unknown as JobSourceColumn;
}
