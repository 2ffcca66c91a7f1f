import { and, eq, sql } from "drizzle-orm";
import { ApiError } from "../../errors.ts";
import type { DatabaseOrTransaction, Store } from "../../store/database.ts";
import { accounts, transcriptJobs } from "../../store/schema.ts";
import { type Credits, type UsageBlock, usageBlock } from "../accounts/index.ts";
import type { FullTranscript, StoredItem, TranscriptStore } from "../kept/index.ts";
import type { WebhookOutbox } from "../webhooks/index.ts";
import { presentedTranscript } from "../words/index.ts";
import {
  errorOfFailure,
  type JobErrorBody,
  type JobFailure,
  type JobFollower,
  type JobSourceColumn,
  jobSourceOf,
  type TranscriptJobRow,
} from "./job-rows.ts";

export interface NewTranscriptJob {
  id: string;
  accountId: string;
  videoId: string;
  platform: string;
  /** The validated request body. */
  request: Record<string, unknown>;
  /** What the worker needs to know of the source (the orchestration's own shape). */
  work: Record<string, unknown>;
  /** The base of `error.docs` links in the job's callback, taken from the request that made it. */
  docsBaseUrl: string;
  callbackUrl: string | null;
  requestId: string;
  /** The operation of the request that made the job, as `METHOD /path`: its charge is recorded under it. */
  operation: string;
  /** What the job is expected to cost, held against the balance until it finishes; default 1. */
  estimatedCredits?: number;
}

/** What an account may have unfinished at once. */
export interface JobAdmissionLimits {
  /** Jobs queued or running, by the account's plan. */
  maxUnfinishedJobs: number;
}

/** Seconds an account at its job cap is told to wait: about one short job. */
const accountBacklogRetryAfterSeconds = 30;

/** What finishing a job successfully takes: the transcript, its price, and where to keep it for reuse. */
export interface JobCompletion {
  transcript: FullTranscript;
  durationSeconds: number;
  credits: number;
  /** The item the transcript is kept under in the store, with the model that made it. */
  stored: StoredItem;
}

export type CompletionOutcome =
  | { kind: "completed"; usage: UsageBlock }
  /** Another attempt of the same job finished it first: nothing was charged again. */
  | { kind: "already_finished" }
  /** The balance could not pay: the job failed with 402 `insufficient_credits`, the transcript was kept. */
  | { kind: "insufficient_credits" };

/** The operation a job admitted before jobs kept theirs is charged under: every job's then. */
const formerJobOperation = "POST /transcripts/video";

/**
 * The rows of speech recognition jobs and their one-way moves: `processing` then `completed` or
 * `failed`, each move conditional on the row still being `processing`, so a retried or
 * duplicated attempt can neither finish a job twice nor charge it twice.
 */
export class TranscriptJobs {
  constructor(
    private readonly store: Store,
    private readonly credits: Credits,
    private readonly transcripts: TranscriptStore,
    private readonly now: () => Date,
    private readonly webhooks?: WebhookOutbox,
    private readonly followers: readonly JobFollower[] = [],
  ) {}

  /**
   * Admits a job for its account and records it, or refuses it: 429 `rate_limited` when the
   * account has `maxUnfinishedJobs` queued or running, 402 `insufficient_credits` when the
   * balance does not cover the expected cost of its unfinished jobs and this one. The account's
   * row is locked while it counts, so concurrent requests are admitted one at a time.
   */
  async admit(job: NewTranscriptJob, limits: JobAdmissionLimits): Promise<void> {
    const estimated = job.estimatedCredits ?? 1;
    await this.store.db.transaction(async (tx) => {
      const [account] = await tx
        .select({ credits: accounts.credits })
        .from(accounts)
        .where(eq(accounts.id, job.accountId))
        .for("update");
      const [backlog] = await tx
        .select({
          jobs: sql<number>`count(*)::int`,
          reserved: sql<number>`coalesce(sum(${transcriptJobs.estimatedCredits}), 0)::int`,
        })
        .from(transcriptJobs)
        .where(and(eq(transcriptJobs.accountId, job.accountId), eq(transcriptJobs.status, "processing")));
      const unfinished = backlog?.jobs ?? 0;
      const reserved = backlog?.reserved ?? 0;
      if (unfinished >= limits.maxUnfinishedJobs) {
        throw new ApiError(
          "rate_limited",
          `The account has ${unfinished} transcription jobs queued or running, the most its plan allows at once. Nothing was charged; retry when one has finished.`,
          { retryAfterSeconds: accountBacklogRetryAfterSeconds },
        );
      }
      const balance = account?.credits ?? null;
      if (balance !== null && balance - reserved < estimated) {
        throw new ApiError(
          "insufficient_credits",
          `This transcription is expected to cost ${estimated} credit${estimated === 1 ? "" : "s"}; the balance is ${balance}, of which ${reserved} ${reserved === 1 ? "is" : "are"} held for ${unfinished} unfinished job${unfinished === 1 ? "" : "s"}. Nothing was charged.`,
        );
      }
      await this.create(job, tx);
    });
  }

  async create(job: NewTranscriptJob, db: DatabaseOrTransaction = this.store.db): Promise<void> {
    const source: JobSourceColumn = { work: job.work, docs_base_url: job.docsBaseUrl, operation: job.operation };
    const createdAt = this.now();
    await db.insert(transcriptJobs).values({
      id: job.id,
      accountId: job.accountId,
      status: "processing",
      videoId: job.videoId,
      platform: job.platform,
      request: job.request,
      source: source as unknown as Record<string, unknown>,
      callbackUrl: job.callbackUrl,
      requestId: job.requestId,
      estimatedCredits: job.estimatedCredits ?? 1,
      createdAt,
      updatedAt: createdAt,
    });
  }

  async find(jobId: string): Promise<TranscriptJobRow | null> {
    const [row] = await this.store.db.select().from(transcriptJobs).where(eq(transcriptJobs.id, jobId));
    return row ?? null;
  }

  /** The job if it belongs to the account; another account's job is as unknown as a missing one. */
  async findOwned(jobId: string, accountId: string): Promise<TranscriptJobRow | null> {
    const [row] = await this.store.db
      .select()
      .from(transcriptJobs)
      .where(and(eq(transcriptJobs.id, jobId), eq(transcriptJobs.accountId, accountId)));
    return row ?? null;
  }

  /** Jobs accepted and not finished, queued or running, across every process: what admission bounds. */
  async unfinishedCount(): Promise<number> {
    const [row] = await this.store.query<{ unfinished: number }>(
      sql`select count(*)::int as unfinished from transcript_jobs where status = 'processing'`,
    );
    return row?.unfinished ?? 0;
  }

  /** Records progress (0 to 1) of a job still processing. */
  async reportProgress(jobId: string, fraction: number): Promise<void> {
    const progress = Math.min(1, Math.max(0, fraction));
    await this.store.db
      .update(transcriptJobs)
      .set({ progress, updatedAt: this.now() })
      .where(and(eq(transcriptJobs.id, jobId), eq(transcriptJobs.status, "processing")));
  }

  /**
   * Completes the job, charges it, keeps the transcript for reuse and enqueues the callback, in
   * one transaction that first moves the row out of `processing`: whichever attempt commits
   * first wins, and a later one changes nothing. A balance that cannot pay fails the job with
   * 402 and charges nothing; the transcript is kept, so the request sent again after a top-up
   * is served from the store.
   */
  async complete(job: TranscriptJobRow, completion: JobCompletion): Promise<CompletionOutcome> {
    const finishedAt = this.now();
    const data = completion.transcript;
    try {
      return await this.store.db.transaction(async (tx) => {
        const [moved] = await tx
          .update(transcriptJobs)
          .set({
            status: "completed",
            progress: 1,
            result: data as unknown as Record<string, unknown>,
            finishedAt,
            updatedAt: finishedAt,
          })
          .where(and(eq(transcriptJobs.id, job.id), eq(transcriptJobs.status, "processing")))
          .returning({ id: transcriptJobs.id });
        if (!moved) return { kind: "already_finished" } as const;
        const balance = await this.credits.charge(
          {
            accountId: job.accountId,
            credits: completion.credits,
            operation: jobSourceOf(job).operation ?? formerJobOperation,
            requestId: job.requestId,
          },
          tx,
        );
        const usage = usageBlock(completion.credits, balance, Buffer.byteLength(data.text));
        await tx
          .update(transcriptJobs)
          .set({ usage: { ...usage } })
          .where(eq(transcriptJobs.id, job.id));
        await this.transcripts.keepSpeech(completion.stored, completion, tx);
        // The callback answers the request that made the job: with word times when it asked for them.
        const delivered = presentedTranscript(data, (job.request as { words?: unknown }).words === true);
        await this.notify(job, "transcript_job.completed", { status: "completed", data: delivered }, tx);
        for (const follower of this.followers) {
          await follower.jobFinished(job, { status: "completed", transcript: data, usage }, tx);
        }
        return { kind: "completed", usage } as const;
      });
    } catch (error) {
      if (!(error instanceof ApiError) || error.code !== "insufficient_credits") throw error;
      await this.transcripts.keepSpeech(completion.stored, completion);
      await this.fail(job, {
        code: "insufficient_credits",
        message: `The transcript is ready but costs ${completion.credits} credit${completion.credits === 1 ? "" : "s"}, more than the balance. Nothing was charged; after a top-up, send the same request again: it is answered from the finished transcript.`,
      });
      return { kind: "insufficient_credits" };
    }
  }

  /** Fails the job if it is still processing and enqueues the callback; answers whether it moved. */
  async fail(job: TranscriptJobRow, failure: JobFailure): Promise<boolean> {
    const finishedAt = this.now();
    return this.store.db.transaction(async (tx) => {
      const [moved] = await tx
        .update(transcriptJobs)
        .set({ status: "failed", error: { ...failure }, finishedAt, updatedAt: finishedAt })
        .where(and(eq(transcriptJobs.id, job.id), eq(transcriptJobs.status, "processing")))
        .returning({ id: transcriptJobs.id });
      if (!moved) return false;
      const error = errorOfFailure(failure).toBody(jobSourceOf(job).docs_base_url) as JobErrorBody;
      await this.notify(job, "transcript_job.failed", { status: "failed", error }, tx);
      for (const follower of this.followers) await follower.jobFinished(job, { status: "failed", error }, tx);
      return true;
    });
  }

  private async notify(
    job: TranscriptJobRow,
    type: "transcript_job.completed" | "transcript_job.failed",
    outcome: Record<string, unknown>,
    tx: DatabaseOrTransaction,
  ): Promise<void> {
    if (!job.callbackUrl || !this.webhooks) return;
    await this.webhooks.enqueue(
      { accountId: job.accountId, url: job.callbackUrl, type, payload: { type, job_id: job.id, ...outcome } },
      tx,
    );
  }
}
