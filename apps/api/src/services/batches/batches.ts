import type { Schema } from "@verbatim/contract";
import { ApiError } from "../../errors.ts";
import type { Logger } from "../../logger.ts";
import { runConcurrently } from "../../run-concurrently.ts";
import type { Credits, PlanName } from "../accounts/index.ts";
import { pricing } from "../accounts/index.ts";
import type { FullTranscript } from "../kept/index.ts";
import type { Transcripts } from "../transcripts/index.ts";
import { presentedTranscript } from "../words/index.ts";

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
  /** Each row's captions translated into this language (`translate_to`). */
  translateTo?: string;
  /** Each `ok` row times its words (`words: true`). */
  words?: boolean;
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

/** The operation a batch's charges are recorded under, its rows' jobs' included. */
const batchOperation = "POST /transcripts/batch";

/** What fetching one video came to: every row naming the video answers it. */
type Delivery =
  | { kind: "transcript"; transcript: FullTranscript; creditsSpent: number; balance: number | null }
  | { kind: "job"; jobId: string; videoId: string }
  | { kind: "error"; error: ApiError; balance?: number | null };

/**
 * Runs a batch's items through the transcript service, `workers` at a time, each row exactly
 * what a single request for the item would give: `ok` (charged as one), `processing` (a job,
 * charged when it completes) or `error` (free). Items naming the same video (an id and its
 * URLs) fetch it once: each repeat answers what its first item did, an `ok` repeat charged
 * what the first was, a `processing` one naming the same job. When the balance can no longer
 * pay, the rows not yet started are `insufficient_credits` without any work. At the deadline,
 * or when the client leaves, rows not started or still waiting for upstream are given up: their
 * charges are refused from then on, and they answer as retryable `timeout` rows.
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
    const keys = batch.items.map((item) => this.transcripts.itemOf(item).key);
    const firstDeliveries = new Map<string, Promise<Delivery | null>>();
    let balance = batch.balance;
    let creditsSpent = 0;
    const runRow = async (index: number) => {
      const item = batch.items[index] as string;
      const key = keys[index] as string;
      const first = firstDeliveries.get(key);
      let delivery: Delivery | null;
      if (first) {
        delivery = await first;
        if (delivery?.kind === "transcript") {
          const refusal = refusalFor(balance);
          delivery = refusal
            ? { kind: "error", error: refusal }
            : await this.chargeRepeat(delivery, item, batch, stopped);
        }
      } else {
        const refusal = refusalFor(balance);
        const fetching = refusal
          ? Promise.resolve<Delivery>({ kind: "error", error: refusal })
          : this.deliver(item, batch, balance, stopped);
        firstDeliveries.set(key, fetching);
        delivery = await fetching;
      }
      if (delivery === null) return;
      rows[index] = this.rowOf(item, delivery, batch);
      if (delivery.kind === "transcript") creditsSpent += delivery.creditsSpent;
      // Rows charge concurrently and finish in any order: the lowest balance is the one after the last charge.
      if (delivery.kind !== "job" && delivery.balance !== undefined) {
        const after = delivery.balance;
        balance = balance === null || after === null ? after : Math.min(balance, after);
      }
    };
    const runners = runConcurrently(fetchOrder(keys), batch.workers, runRow, stopped);
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

  /** What the first item naming a video came to; `null` when the batch stopped before it finished. */
  private async deliver(
    item: string,
    batch: BatchRequest,
    balance: number | null,
    stopped: AbortSignal,
  ): Promise<Delivery | null> {
    try {
      const outcome = await this.transcripts.fetch({
        video: item,
        mode: batch.mode,
        ...(batch.translateTo === undefined ? {} : { translateTo: batch.translateTo }),
        accountId: batch.accountId,
        plan: batch.plan,
        balance,
        requestId: batch.requestId,
        operation: batchOperation,
        callbackUrl: null,
        body: {
          video: item,
          mode: batch.mode,
          ...(batch.translateTo === undefined ? {} : { translate_to: batch.translateTo }),
        },
        docsBaseUrl: batch.docsBaseUrl,
        signal: stopped,
        ...(batch.words ? { words: true } : {}),
      });
      if (outcome.kind === "job") return { kind: "job", jobId: outcome.jobId, videoId: outcome.videoId };
      const { transcript, creditsSpent, balance: after } = outcome;
      return { kind: "transcript", transcript, creditsSpent, balance: after };
    } catch (error) {
      return this.failed(error, item, batch, stopped);
    }
  }

  /** A repeated item's transcript, charged again as a single request for it would be; `null` when the batch stopped first. */
  private async chargeRepeat(
    first: Extract<Delivery, { kind: "transcript" }>,
    item: string,
    batch: BatchRequest,
    stopped: AbortSignal,
  ): Promise<Delivery | null> {
    try {
      const balance = await this.credits.charge({
        accountId: batch.accountId,
        credits: first.creditsSpent,
        operation: batchOperation,
        requestId: batch.requestId,
        signal: stopped,
      });
      return { ...first, balance };
    } catch (error) {
      return this.failed(error, item, batch, stopped);
    }
  }

  /** The error delivery of a row that failed; `null` when it failed because the batch stopped. */
  private async failed(
    error: unknown,
    item: string,
    batch: BatchRequest,
    stopped: AbortSignal,
  ): Promise<Delivery | null> {
    if (stopped.aborted) return null;
    if (error instanceof ApiError) {
      // A charge refused for the balance: what remains of it is known, and the rows left are refused too.
      return error.code === "insufficient_credits"
        ? { kind: "error", error, balance: await this.credits.balance(batch.accountId) }
        : { kind: "error", error };
    }
    this.logger.error({ err: error, request_id: batch.requestId, input: item }, "batch row failed unexpectedly");
    return {
      kind: "error",
      error: new ApiError("internal_error", "This item failed unexpectedly; nothing was charged for it."),
    };
  }

  private rowOf(item: string, delivery: Delivery, batch: BatchRequest): BatchRow {
    switch (delivery.kind) {
      case "transcript":
        return { ...presentedTranscript(delivery.transcript, batch.words === true), input: item, outcome: "ok" };
      case "job":
        return {
          input: item,
          video_id: delivery.videoId,
          outcome: "processing",
          job_id: delivery.jobId,
          poll_url: `/api/v2/transcripts/jobs/${delivery.jobId}`,
        };
      case "error":
        return this.errorRow(item, delivery.error, batch.docsBaseUrl);
    }
  }

  private errorRow(item: string, error: ApiError, docsBaseUrl: string): ErrorRow {
    const retryAfter = error.retryAfterSeconds ?? (isTransient(error) ? retryableRowDelaySeconds : undefined);
    return {
      input: item,
      video_id: this.transcripts.itemOf(item).videoId,
      outcome: "error",
      error: error.toBody(docsBaseUrl) as ErrorRow["error"],
      ...(retryAfter === undefined ? {} : { retry_after: retryAfter }),
    };
  }
}

/**
 * The order rows run in: each video's first item, in the order sent, then the repeats, so a
 * repeat waits only on a fetch already under way and never holds a worker a new video needs.
 */
function fetchOrder(keys: readonly string[]): number[] {
  const seen = new Set<string>();
  const firsts: number[] = [];
  const repeats: number[] = [];
  keys.forEach((key, index) => {
    if (seen.has(key)) {
      repeats.push(index);
    } else {
      seen.add(key);
      firsts.push(index);
    }
  });
  return [...firsts, ...repeats];
}

/** 5xxx errors are transient by the error table's families: retry with backoff. */
function isTransient(error: ApiError): boolean {
  return error.number >= 5000 && error.number < 6000;
}

/** The `insufficient_credits` of a row the balance (`null`: unlimited) can no longer pay; `null` when it can. */
function refusalFor(balance: number | null): ApiError | null {
  if (balance === null || balance >= pricing.minimum()) return null;
  return new ApiError(
    "insufficient_credits",
    `The balance (${balance}) ran out before this item; nothing was charged for it. Resubmit it after a top-up.`,
  );
}
