import type { RequestHandler, Response } from "express";
import type { ChargeSettlement } from "../services/accounts/index.ts";
import { Idempotency, type IdempotentAnswer, type StoredResponse } from "../services/accounts/index.ts";
import { retryUntilReachable } from "../store/retry-until-reachable.ts";
import type { AppDeps } from "./app-deps.ts";
import { authOf } from "./locals.ts";

/**
 * Applies `Idempotency-Key` (docs/decisions.md, rule 9) to the operation. The response is stored (2xx) or the
 * key given back (anything else) before it is sent, so a retry never races the first answer. A
 * route that charges through the request's settlement (`settlementOf`) commits its charge with
 * the stored response, in one transaction.
 */
export function idempotent(deps: AppDeps): RequestHandler {
  return async (req, res, next) => {
    const key = req.get("idempotency-key");
    if (key === undefined) return next();
    const { accountId } = authOf(res);
    const fingerprint = Idempotency.fingerprint(req.method, req.baseUrl + req.path, req.body);
    const start = await deps.platform.idempotency.begin(accountId, key, fingerprint);
    if (start.action === "replay") {
      for (const [name, value] of Object.entries(start.response.headers)) res.setHeader(name, value);
      res.setHeader("Idempotent-Replayed", "true");
      res.status(start.response.status).json(start.response.body);
      return;
    }

    const { idempotency } = deps.platform;
    const answer = idempotency.answerTo(accountId, key, fingerprint);
    res.locals.idempotentAnswer = answer;
    // The lock lasts as long as the request does, however long its download or transcription runs.
    const renewal = setInterval(() => {
      idempotency
        .renew(accountId, key, fingerprint)
        .catch((err: unknown) =>
          deps.logger.warn({ err, request_id: res.locals.requestId }, "idempotency lock renewal"),
        );
    }, idempotency.renewalIntervalMs);
    renewal.unref();
    const send = res.json.bind(res);
    let settled = false;
    res.json = (body: unknown) => {
      settled = true;
      clearInterval(renewal);
      const response: StoredResponse = {
        status: res.statusCode,
        headers: { "X-Request-Id": String(res.getHeader("X-Request-Id")) },
        body,
      };
      if (response.status < 200 || response.status >= 300) {
        void answer
          .abandon()
          .then(() => idempotency.finish(accountId, key, fingerprint, response))
          .catch((err: unknown) => {
            deps.logger.error({ err, request_id: res.locals.requestId }, "idempotency record");
            void releaseOnceReachable(deps, accountId, key, fingerprint);
          })
          .finally(() => send(body));
        return res;
      }
      if (!import.meta.withoutTestFaults) deps.faultPoint?.("exit-after-charge");
      const charged = answer.holdsCharge;
      answer.complete(response).then(
        () => send(body),
        (err: unknown) => {
          deps.logger.error({ err, request_id: res.locals.requestId }, "idempotency record");
          // The charge rolled back with the record: an answer saying it was charged would be false.
          if (charged) next(err);
          else send(body);
        },
      );
      return res;
    };
    res.once("close", () => {
      clearInterval(renewal);
      if (!settled) void releaseOnceReachable(deps, accountId, key, fingerprint);
    });
    next();
  };
}

/** Where a route charges so that the charge commits with the answer: the request's Idempotency-Key answer, if it sent a key. */
export function settlementOf(res: Response): ChargeSettlement | undefined {
  return res.locals.idempotentAnswer as IdempotentAnswer | undefined;
}

/**
 * Gives a key back, trying again while the store cannot be reached: a key left in flight after an
 * outage would answer the client's retries 409 "still running" until its lock lapsed, minutes later.
 */
function releaseOnceReachable(deps: AppDeps, accountId: string, key: string, fingerprint: string): Promise<boolean> {
  const { idempotency } = deps.platform;
  return retryUntilReachable(() => idempotency.release(accountId, key, fingerprint), idempotency.lockMs);
}
