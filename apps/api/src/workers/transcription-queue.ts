import type { Queue } from "pg-boss";
import { abandonedTranscriptionQueueName, type PgBoss, transcriptionQueueName } from "../queue/job-queue.ts";
import { type PlanName, planNames, plans } from "../services/accounts/index.ts";
import type { QueuedTranscription, TranscriptionMessage, TranscriptionQueue } from "../services/speech/index.ts";

export interface TranscriptionQueueSettings {
  /** A worker that has not reported for this long is presumed dead, and the job is retried. */
  heartbeatSeconds: number;
  /** Attempts after the first; a job whose attempts all died is failed as `internal_error`. */
  retryLimit: number;
}

/** The longest an attempt may run, beyond any heartbeat: four hours of audio on a slow engine. */
const attemptLimitSeconds = 4 * 60 * 60;

/** The queues to create at start-up (see `startJobQueue`), the dead-letter queue first: the other names it. */
export function transcriptionQueues(settings: TranscriptionQueueSettings): Queue[] {
  return [
    { name: abandonedTranscriptionQueueName, retryLimit: 2, retryDelay: 5 },
    {
      name: transcriptionQueueName,
      heartbeatSeconds: settings.heartbeatSeconds,
      retryLimit: settings.retryLimit,
      retryDelay: 2,
      expireInSeconds: attemptLimitSeconds,
      deadLetter: abandonedTranscriptionQueueName,
    },
  ];
}

/**
 * Jobs of one account that may run at once in a process of `workers`, by plan: the plan's
 * workers (docs/decisions.md, rule 5), and never every worker of the process, so one account's backlog (or its
 * stalled downloads) always leaves a worker to the jobs of other accounts.
 */
export function perAccountConcurrency(workers: number): { default: number; tiers: Record<PlanName, number> } {
  const shareOfOneAccount = Math.max(1, workers - 1);
  const tiers = Object.fromEntries(
    planNames.map((name) => [name, Math.min(shareOfOneAccount, plans[name].batchWorkers)]),
  ) as Record<PlanName, number>;
  return { default: Math.min(...Object.values(tiers)), tiers };
}

/** The transcription queue on pg-boss. */
export class PgBossTranscriptionQueue implements TranscriptionQueue {
  constructor(private readonly boss: PgBoss) {}

  async enqueue(job: TranscriptionMessage): Promise<QueuedTranscription> {
    const id = await sendTranscription(this.boss, job);
    return {
      withdraw: async () => {
        await this.boss.deleteJob(transcriptionQueueName, id);
      },
    };
  }

  async check(): Promise<void> {
    if (!(await this.boss.getQueue(transcriptionQueueName))) {
      throw new Error(`The job queue has no queue ${transcriptionQueueName}.`);
    }
  }
}

/**
 * Queues a transcription under its account and plan, `startAfterSeconds` from now: pg-boss's
 * group keeps each worker from taking more of one account's jobs than the plan allows.
 */
export async function sendTranscription(
  boss: PgBoss,
  message: TranscriptionMessage,
  startAfterSeconds = 0,
): Promise<string> {
  const id = await boss.send(transcriptionQueueName, message, {
    group: { id: message.accountId, tier: message.plan },
    ...(startAfterSeconds > 0 ? { startAfter: startAfterSeconds } : {}),
  });
  if (id === null) throw new Error(`the queue refused the job ${message.jobId}`);
  return id;
}
