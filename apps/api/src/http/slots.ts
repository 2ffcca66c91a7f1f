import type { RequestHandler, Response } from "express";
import { ApiError } from "../errors.ts";
import { HeldSlot, plans, type SlotLease } from "../services/accounts/index.ts";
import type { AppDeps } from "./app-deps.ts";
import { authOf, keepSlot, slotOf } from "./locals.ts";

/** What a client is told to wait when every slot is busy: slots free as requests finish, usually within seconds. */
export const busySlotsRetryAfterSeconds = 2;

/**
 * Holds one of the account's extraction slots (docs/decisions.md, rule 7) while the request runs: the one taken
 * with its admission (`authenticate`), or else one taken now. No free slot: 429 `rate_limited`,
 * before any work (a store that cannot be reached is 503 `overloaded`, as anywhere in a request:
 * `errorHandler`). The slot is given back when
 * the response closes (on success, on error, on timeout and when the client disconnects), or
 * earlier by the statement that ends the work.
 */
export function holdExtractionSlot(deps: AppDeps): RequestHandler {
  return async (_req, res, next) => {
    if (slotOf(res)) return next();
    const auth = authOf(res);
    const slots = plans[auth.plan].extractionSlots;
    const lease = await deps.platform.slots.acquire(auth.accountId, slots);
    if (!lease) {
      deps.metrics.allowanceRefused("slots");
      throw new ApiError(
        "rate_limited",
        `All ${slots} extraction slots of the account are busy. Retry after ${busySlotsRetryAfterSeconds} seconds.`,
        { retryAfterSeconds: busySlotsRetryAfterSeconds },
      );
    }
    holdSlot(deps, res, lease);
    next();
  };
}

/** Makes the lease the request's slot (`slotOf`), given back when the response closes unless a statement did first. */
export function holdSlot(deps: AppDeps, res: Response, lease: SlotLease): void {
  const held = new HeldSlot(deps.platform.slots, lease);
  keepSlot(res, held);
  res.once("close", () => {
    void held.release().then((released) => {
      if (!released) deps.logger.warn({ lease: lease.id }, "slot release failed; retried until the store answers");
    });
  });
}
