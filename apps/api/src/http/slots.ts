import type { RequestHandler } from "express";
import type { AppDeps } from "../deps.ts";
import { ApiError } from "../errors.ts";
import { plans } from "../services/plans.ts";
import { authOf, storeUnreachable } from "./auth.ts";

/** What a client is told to wait when every slot is busy: slots free as requests finish, usually within seconds. */
export const busySlotsRetryAfterSeconds = 2;

/**
 * Holds one of the account's extraction slots (spec 8.4) while the request runs. The slot is
 * given back when the response closes: on success, on error, on timeout and when the client
 * disconnects. No free slot: 429 `rate_limited`, before any work; a store that cannot be reached,
 * 503 `overloaded`.
 */
export function holdExtractionSlot(deps: AppDeps): RequestHandler {
  return async (_req, res, next) => {
    const auth = authOf(res);
    const slots = plans[auth.plan].extractionSlots;
    // Admitted, but the store went away before the slot was taken: still nothing ran, so 503 as at admission.
    const lease = await deps.platform.slots.acquire(auth.accountId, slots).catch((cause: unknown) => {
      throw storeUnreachable(cause);
    });
    if (!lease) {
      deps.metrics.allowanceRefused("slots");
      throw new ApiError(
        "rate_limited",
        `All ${slots} extraction slots of the account are busy. Retry after ${busySlotsRetryAfterSeconds} seconds.`,
        { retryAfterSeconds: busySlotsRetryAfterSeconds },
      );
    }
    res.once("close", () => {
      deps.platform.slots
        .release(lease)
        .catch((err: unknown) =>
          deps.logger.warn({ err, lease: lease.id }, "slot release failed; its lease will expire"),
        );
    });
    next();
  };
}
