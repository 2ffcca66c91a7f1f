import type { Schema } from "@verbatim/contract";
import { parseVideoReference } from "../adapters/youtube/video-reference.ts";
import { ApiError } from "../errors.ts";
import type { Logger } from "../logger.ts";
import type { Credits } from "./credits.ts";
import type { PlanName } from "./plans.ts";
import { pricing } from "./pricing.ts";
import type { Transcripts } from "./transcripts.ts";

export type BatchRow = Schema<"BatchRow">;
type ErrorRow = Extract<BatchRow, { outcome: "error" }>;

/** What a retryable row tells the client to wait when its error names no delay of its own. */
export const retryableRowDelaySeconds = 30;

/** After the deadline, how long rows already inside their charge get to finish: far more than one statement takes. */
const chargeGraceMs = 2_000;

/** One batch as the route read it. */
export interface BatchRequest {
  items: readonly string[];
  mode: "auto" | "captions";
  accountId: string;
  plan: PlanName;
  /** The balance when the request arrived; null for unlimited accounts. */
  balance: number | null;
  requestId: string;
  docsBaseUrl: string;
  /** How many rows run at once: the extraction slots the batch holds. */
  workers: number;
  /** When the answer is due, counted from now. */
  deadlineMs: number;
  /** Aborted when the client leaves: rows not started never run. */
  disconnected: AbortSignal;
}

/** The batch's rows in the order sent, and what they charged. */
export interface BatchOutcome {
  rows: BatchRow[];
  creditsSpent: number;
  balance: number | null;
}

/**
 * Runs a batch's items through the transcript service, `workers` at a time, each row exactly
 * what a single request for the item would give: `ok` (charged as one), `processing` (a job,
 * charged when it completes) or `error` (free). When the balance can no longer pay, the rows
 * not yet started are `insufficient_credits` without any work. At the deadline, or when the
 * client leaves, rows not started or still waiting for upstream are given up: their charges are
 * refused from then on, and they answer as retryable `timeout` rows.
 */
export class Batches {
  constructor(
    private readonly transcripts: Transcripts,
    private readonly credits: Credits,
    private readonly logger: Logger,
  ) {}

  async run(batch: BatchRequest): Promise<BatchOutcome> {
    const stop = new AbortController();
    const stopped = AbortSignal.any([stop.signal, batch.disconnected]);
    const rows = new Array<BatchRow | undefined>(batch.items.length);
    let balance = batch.balance;
    let creditsSpent = 0;
    let next = 0;
    const runRows = async () => {
      for (let index = next++; index < batch.items.length; index = next++) {
        if (stopped.aborted) return;
        const item = batch.items[index] as string;
        if (balance !== null && balance < pricing.minimum()) {
          rows[index] = this.errorRow(item, outOfCredits(balance), batch.docsBaseUrl);
          continue;
        }
        const row = await this.row(item, batch, balance, stopped);
        if (row === null) return;
        rows[index] = row.row;
        creditsSpent += row.creditsSpent;
        // Rows charge concurrently and finish in any order: the lowest balance is the one after the last charge.
        if (row.balance !== undefined)
          balance = balance === null || row.balance === null ? row.balance : Math.min(balance, row.balance);
      }
    };
    const runners = Promise.all(Array.from({ length: Math.max(1, batch.workers) }, runRows));
    let deadline: NodeJS.Timeout | undefined;
    const deadlinePassed = new Promise<void>((resolve) => {
      deadline = setTimeout(resolve, batch.deadlineMs);
    });
    const gaveUp = await Promise.race([runners.then(() => false), deadlinePassed.then(() => true)]);
    clearTimeout(deadline);
    if (gaveUp) {
      stop.abort(new Error("the batch reached its deadline"));
      await Promise.race([runners, new Promise((resolve) => setTimeout(resolve, chargeGraceMs))]);
    }
    const late = new ApiError(
      "timeout",
      `The batch answered after ${batch.deadlineMs / 1000} s, before this item finished. Nothing was charged for it; resubmit it.`,
    );
    return {
      rows: batch.items.map((item, index) => rows[index] ?? this.errorRow(item, late, batch.docsBaseUrl)),
      creditsSpent,
      balance,
    };
  }

  /** One item's row; `null` when the batch stopped before the item finished. */
  private async row(
    item: string,
    batch: BatchRequest,
    balance: number | null,
    stopped: AbortSignal,
  ): Promise<{ row: BatchRow; creditsSpent: number; balance?: number | null } | null> {
    try {
      const outcome = await this.transcripts.fetch({
        video: item,
        mode: batch.mode,
        accountId: batch.accountId,
        plan: batch.plan,
        balance,
        requestId: batch.requestId,
        operation: "POST /transcripts/batch",
        callbackUrl: null,
        body: { video: item, mode: batch.mode },
        docsBaseUrl: batch.docsBaseUrl,
        signal: stopped,
      });
      if (outcome.kind === "job") {
        return {
          row: {
            input: item,
            video_id: outcome.videoId,
            outcome: "processing",
            job_id: outcome.jobId,
            poll_url: `/api/v2/transcripts/jobs/${outcome.jobId}`,
          },
          creditsSpent: 0,
        };
      }
      return {
        row: { ...outcome.transcript, input: item, outcome: "ok" },
        creditsSpent: outcome.creditsSpent,
        balance: outcome.balance,
      };
    } catch (error) {
      if (stopped.aborted) return null;
      if (error instanceof ApiError) {
        const row = this.errorRow(item, error, batch.docsBaseUrl);
        // A charge refused for the balance: what remains of it is known, and the rows left are refused too.
        return error.code === "insufficient_credits"
          ? { row, creditsSpent: 0, balance: await this.credits.balance(batch.accountId) }
          : { row, creditsSpent: 0 };
      }
      this.logger.error({ err: error, request_id: batch.requestId, input: item }, "batch row failed unexpectedly");
      const internal = new ApiError("internal_error", "This item failed unexpectedly; nothing was charged for it.");
      return { row: this.errorRow(item, internal, batch.docsBaseUrl), creditsSpent: 0 };
    }
  }

  private errorRow(item: string, error: ApiError, docsBaseUrl: string): ErrorRow {
    const retryAfter = error.retryAfterSeconds ?? (isTransient(error) ? retryableRowDelaySeconds : undefined);
    return {
      input: item,
      video_id: videoIdOf(item),
      outcome: "error",
      error: error.toBody(docsBaseUrl) as ErrorRow["error"],
      ...(retryAfter === undefined ? {} : { retry_after: retryAfter }),
    };
  }
}

/** 5xxx errors are transient by the error table's families: retry with backoff. */
function isTransient(error: ApiError): boolean {
  return error.number >= 5000 && error.number < 6000;
}

/** The YouTube id an item names, or the item as sent when it names none. */
function videoIdOf(item: string): string {
  const reference = parseVideoReference(item);
  return reference.kind === "youtube" ? reference.videoId : item;
}

function outOfCredits(balance: number): ApiError {
  return new ApiError(
    "insufficient_credits",
    `The balance (${balance}) ran out before this item; nothing was charged for it. Resubmit it after a top-up.`,
  );
}
