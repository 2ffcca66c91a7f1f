import type { RequestHandler } from "express";
import type { AppDeps } from "../deps.ts";
import { Idempotency, type StoredResponse } from "../services/idempotency.ts";
import { retryUntilReachable } from "../store/retry-until-reachable.ts";
import { authOf } from "./auth.ts";

/**
 * Applies `Idempotency-Key` (spec 4.9) to the operation. The response is stored (2xx) or the
 * key given back (anything else) before it is sent, so a retry never races the first answer.
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
      deps.platform.idempotency
        .finish(accountId, key, fingerprint, response)
        .catch((err: unknown) => {
          deps.logger.error({ err, request_id: res.locals.requestId }, "idempotency record");
          if (response.status < 200 || response.status >= 300) releaseOnceReachable(deps, accountId, key, fingerprint);
        })
        .finally(() => send(body));
      return res;
    };
    res.once("close", () => {
      clearInterval(renewal);
      if (!settled) releaseOnceReachable(deps, accountId, key, fingerprint);
    });
    next();
  };
}

/**
 * Gives a key back, trying again while the store cannot be reached: a key left in flight after an
 * outage would answer the client's retries 409 "still running" until its lock lapsed, minutes later.
 */
function releaseOnceReachable(deps: AppDeps, accountId: string, key: string, fingerprint: string): void {
  const { idempotency } = deps.platform;
  void retryUntilReachable(() => idempotency.release(accountId, key, fingerprint), idempotency.lockMs);
}
