import type { Logger } from "../logger.ts";
import { abandonedTranscriptionQueueName, type Job, type PgBoss, transcriptionQueueName } from "../queue/job-queue.ts";
import type { AccountSlots } from "../services/accounts/index.ts";
import { plans } from "../services/accounts/index.ts";
import type { SpeechJobRunner, TranscriptionMessage } from "../services/speech/index.ts";
import { perAccountConcurrency, sendTranscription } from "./transcription-queue.ts";

/** How long a job waits before it is offered again when its account's plan already runs its workers elsewhere. */
const busyAccountRetrySeconds = 2;

export interface TranscriptionWorkerOptions {
  /** Jobs this process runs at once (`VERBATIM_WORKERS`). */
  workers: number;
  /** How often an idle worker looks for a job. */
  pollSeconds: number;
  /** The queue's retry limit: the attempt numbered this is the last. */
  retryLimit: number;
  /** The accounts' running jobs, counted across every worker process. */
  jobSlots: AccountSlots;
  logger: Logger;
}

/** The workers running in this process. */
export interface TranscriptionWorker {
  /** Stops taking jobs and waits for the attempts running here to finish. */
  stop(): Promise<void>;
}

/**
 * Runs transcription jobs from the queue in this process: `workers` at once, and no more than the
 * plan's workers per account, across every worker process. pg-boss's local group concurrency
 * keeps this process from taking more; a slot of the account's `transcription` pool, taken in the
 * database, holds the plan's limit across processes, and a job taken while the account's slots are
 * busy elsewhere goes back to the queue untried. pg-boss keeps each claimed job's heartbeat, so the
 * job of a killed worker is retried by another; a job whose every attempt died is failed from the
 * dead-letter queue.
 */
export async function startTranscriptionWorker(
  boss: PgBoss,
  speech: Pick<SpeechJobRunner, "runJob" | "abandonJob">,
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
      const { accountId, plan } = job.data;
      const attempts = (job.data.attemptsBefore ?? 0) + job.retryCount;
      const slot = await options.jobSlots.acquire(accountId, plans[plan].batchWorkers);
      if (!slot) {
        await sendTranscription(boss, { ...job.data, attemptsBefore: attempts }, busyAccountRetrySeconds);
        return;
      }
      try {
        await speech.runJob(job.data.jobId, { signal: job.signal, finalAttempt: attempts >= options.retryLimit });
      } finally {
        await options.jobSlots.release(slot);
      }
    },
  );
  await boss.work<TranscriptionMessage>(
    abandonedTranscriptionQueueName,
    { batchSize: 1, pollingIntervalSeconds: options.pollSeconds },
    async ([job]: Job<TranscriptionMessage>[]) => {
      if (job) await speech.abandonJob(job.data.jobId);
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
