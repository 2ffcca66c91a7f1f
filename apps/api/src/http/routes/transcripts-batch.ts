import type { RequestBody } from "@verbatim/contract";
import type { Response } from "express";
import { ApiError } from "../../errors.ts";
import type { SlotLease } from "../../services/accounts/index.ts";
import { plans, usageBlock } from "../../services/accounts/index.ts";
import type { Batches } from "../../services/batches/index.ts";
import type { AppDeps } from "../app-deps.ts";
import { authOf, publicBaseUrl, requestIdOf } from "../locals.ts";
import { bodyOf, type LiveRoute, sendOk } from "../route.ts";
import { busySlotsRetryAfterSeconds } from "../slots.ts";

type BatchBody = RequestBody<"fetchTranscriptsBatch">;

/** How long a batch may take before it answers with what it has: the README states it. */
export const defaultBatchDeadlineMs = 60_000;

/**
 * `POST /transcripts/batch` (docs/decisions.md, rule 7): one request against the allowance, running its items
 * through as many of the account's extraction slots as its plan has batch workers, of those
 * free, at least one. Each row is what a single request for the item gives; the answer comes
 * within the deadline, with the rows that did not finish as retryable errors.
 */
export function fetchTranscriptsBatch(deps: AppDeps, batches: Batches): LiveRoute {
  return {
    operationId: "fetchTranscriptsBatch",
    handler: async (req, res) => {
      const body = bodyOf<BatchBody>(req);
      const auth = authOf(res);
      const items = itemsOf(body);
      const plan = plans[auth.plan];
      if (items.length > plan.maxBatchItems) {
        throw new ApiError(
          "batch_too_large",
          `The ${capitalised(plan.name)} plan allows ${plan.maxBatchItems} items per batch; ${items.length} were sent. Nothing was charged.`,
          { extra: { details: { max: plan.maxBatchItems, sent: items.length } } },
        );
      }
      const held = await holdBatchSlots(deps, res, plan.batchWorkers, plan.extractionSlots);
      const disconnected = new AbortController();
      res.once("close", () => {
        if (!res.writableFinished) disconnected.abort(new Error("the client closed the connection"));
      });
      const outcome = await batches.run({
        items,
        mode: body.mode ?? "auto",
        ...(body.translate_to === undefined ? {} : { translateTo: body.translate_to }),
        ...(body.words === true ? { words: true } : {}),
        accountId: auth.accountId,
        plan: auth.plan,
        balance: auth.credits,
        requestId: requestIdOf(res),
        docsBaseUrl: publicBaseUrl(req, deps.config.publicUrl),
        workers: held.count,
        deadlineMs: deps.config.batchDeadlineMs ?? defaultBatchDeadlineMs,
        disconnected: disconnected.signal,
      });
      await held.release();
      const bytes = outcome.rows.reduce(
        (sum, row) => sum + (row.outcome === "ok" ? Buffer.byteLength(row.text) : 0),
        0,
      );
      sendOk(res, "fetchTranscriptsBatch", 200, {
        data: { kind: "transcript_batch", results: outcome.rows },
        usage: usageBlock(outcome.creditsSpent, outcome.balance, bytes),
      });
    },
  };
}

/** The items, sent as `video_ids` or as the legacy `videoIds`; both or neither is 400. */
function itemsOf(body: BatchBody): string[] {
  if (body.video_ids !== undefined && body.videoIds !== undefined) {
    throw new ApiError("invalid_request", "Send video_ids or its legacy name videoIds, not both.", {
      extra: { issues: [{ path: "/body/videoIds", message: "videoIds is the legacy name of video_ids; drop it." }] },
    });
  }
  const items = body.video_ids ?? body.videoIds;
  if (items === undefined) {
    throw new ApiError("invalid_request", "A batch needs video_ids: the video ids or URLs to fetch.", {
      extra: { issues: [{ path: "/body/video_ids", message: "required" }] },
    });
  }
  return items;
}

/** Extraction slots a batch holds, and the one way to give them back. */
interface HeldSlots {
  count: number;
  /** Gives every slot back; later calls do nothing. */
  release(): Promise<void>;
}

/**
 * Takes up to `wanted` of the account's free extraction slots, at least one, or refuses with 429
 * before any work. The handler gives them back before it answers, so the client's next request
 * finds them free; a response that closes first (an error, a disconnect) gives them back then.
 */
async function holdBatchSlots(deps: AppDeps, res: Response, wanted: number, slots: number): Promise<HeldSlots> {
  const auth = authOf(res);
  const leases: SlotLease[] = [];
  let released: Promise<void> | undefined;
  const release = () => {
    released ??= Promise.all(
      leases.map(async (lease) => {
        if (!(await deps.platform.slots.release(lease))) {
          deps.logger.warn({ lease: lease.id }, "slot release failed; retried until the store answers");
        }
      }),
    ).then(() => undefined);
    return released;
  };
  res.once("close", () => void release());
  while (leases.length < wanted) {
    const lease = await deps.platform.slots.acquire(auth.accountId, slots);
    if (!lease) break;
    leases.push(lease);
  }
  if (leases.length === 0) {
    throw new ApiError(
      "rate_limited",
      `All ${slots} extraction slots of the account are busy; a batch needs at least one. Retry after ${busySlotsRetryAfterSeconds} seconds.`,
      { retryAfterSeconds: busySlotsRetryAfterSeconds },
    );
  }
  return { count: leases.length, release };
}

function capitalised(name: string): string {
  return `${name.charAt(0).toUpperCase()}${name.slice(1)}`;
}
