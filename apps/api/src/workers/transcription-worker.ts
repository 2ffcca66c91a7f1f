import type { Logger } from "../logger.ts";
import type { Job, PgBoss } from "../queue/job-queue.ts";
import type { AudioTranscripts } from "../services/audio-transcripts.ts";
import {
  abandonedTranscriptionQueueName,
  perAccountConcurrency,
  type TranscriptionMessage,
  transcriptionQueueName,
} from "./transcription-queue.ts";

export interface TranscriptionWorkerOptions {
  /** Jobs this process runs at once (`VERBATIM_WORKERS`). */
  workers: number;
  /** How often an idle worker looks for a job. */
  pollSeconds: number;
  /** The queue's retry limit: the attempt numbered this is the last. */
  retryLimit: number;
  logger: Logger;
}

/** The workers running in this process. */
export interface TranscriptionWorker {
  /** Stops taking jobs and waits for the attempts running here to finish. */
  stop(): Promise<void>;
}

/**
 * Runs transcription jobs from the queue in this process: `workers` at once, and no more than the
 * plan's workers per account in this process (pg-boss local group concurrency; with several
 * worker processes, the limit holds per process). pg-boss keeps each claimed job's heartbeat, so the job of a killed worker is retried
 * by another; a job whose every attempt died is failed from the dead-letter queue.
 */
export async function startTranscriptionWorker(
  boss: PgBoss,
  audio: AudioTranscripts,
  options: TranscriptionWorkerOptions,
): Promise<TranscriptionWorker> {
  await boss.work<TranscriptionMessage>(
    transcriptionQueueName,
    {
      batchSize: 1,
      localConcurrency: options.workers,
      // Counted in this process's memory, where it is exact. pg-boss's database-wide
      // `groupConcurrency` reads its count without a lock: measured on PostgreSQL, workers fetching
      // at one instant let 3 jobs of a Free account run at once in 1 run of 4.
      localGroupConcurrency: perAccountConcurrency(options.workers),
      pollingIntervalSeconds: options.pollSeconds,
    },
    async ([job]: Job<TranscriptionMessage>[]) => {
      if (!job) return;
      await audio.runJob(job.data.jobId, { signal: job.signal, finalAttempt: job.retryCount >= options.retryLimit });
    },
  );
  await boss.work<TranscriptionMessage>(
    abandonedTranscriptionQueueName,
    { batchSize: 1, pollingIntervalSeconds: options.pollSeconds },
    async ([job]: Job<TranscriptionMessage>[]) => {
      if (job) await audio.abandonJob(job.data.jobId);
    },
  );
  options.logger.info({ workers: options.workers }, "transcription workers started");
  return {
    async stop() {
      await Promise.all(
        [transcriptionQueueName, abandonedTranscriptionQueueName].map((name) => boss.offWork(name, { wait: true })),
      );
    },
  };
}
