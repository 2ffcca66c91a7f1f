import type { PlanName } from "../accounts/index.ts";

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
