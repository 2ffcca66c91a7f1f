import { createHash, timingSafeEqual } from "node:crypto";
import { isIP } from "node:net";
import { performance } from "node:perf_hooks";
import { type Request, type RequestHandler, Router } from "express";
import ipaddr from "ipaddr.js";
import { ApiError } from "../errors.ts";
import { type ServiceMetrics, unmatchedOperation } from "../metrics.ts";
import type { Store } from "../store/database.ts";

/** Names the operation a request is for, as the first operation whose path matched: the label of its metrics. */
export function nameOperation(operationId: string): RequestHandler {
  return (_req, res, next) => {
    res.locals.operationId ??= operationId;
    next();
  };
}

/** Counts every request when its response ends, by the operation it was for (`unmatched` for none) and status. */
export function countRequests(metrics: ServiceMetrics): RequestHandler {
  return (_req, res, next) => {
    const started = performance.now();
    res.once("finish", () => {
      const operation = (res.locals.operationId as string | undefined) ?? unmatchedOperation;
      metrics.requestAnswered(operation, res.statusCode, (performance.now() - started) / 1000);
    });
    next();
  };
}

export interface MetricsAccess {
  /** `VERBATIM_METRICS_TOKEN`: with it, any client that sends it is served; without it, loopback clients only. */
  token?: string | undefined;
}

/**
 * `GET /metrics`, in the Prometheus text format: an operator endpoint outside the versioned API.
 * Without a token it serves loopback clients only (a request a proxy on this machine forwards,
 * saying so by `Forwarded`, `X-Forwarded-For` or `X-Real-IP`, is not one), and answers others 404
 * saying how to reach it; with a token, a missing or wrong `Authorization: Bearer` is 401.
 */
export function metricsEndpoint(metrics: ServiceMetrics, store: Store, access: MetricsAccess): Router {
  const router = Router();
  const expected = access.token === undefined ? undefined : digest(access.token);
  router.get("/metrics", async (req, res) => {
    if (expected) {
      const sent = /^Bearer (\S+)$/i.exec(req.get("authorization") ?? "")?.[1];
      if (!sent || !timingSafeEqual(digest(sent), expected)) {
        res.setHeader("WWW-Authenticate", 'Bearer realm="verbatim-metrics"');
        throw new ApiError(
          "unauthorized",
          "GET /metrics needs the operator's token: send Authorization: Bearer <VERBATIM_METRICS_TOKEN>.",
        );
      }
    } else if (!isLoopbackClient(req)) {
      throw new ApiError(
        "not_found",
        "GET /metrics is served to loopback clients only. Set VERBATIM_METRICS_TOKEN to scrape it from other addresses with that bearer token.",
      );
    }
    await metrics.refresh(store);
    res.setHeader("Content-Type", metrics.contentType);
    res.setHeader("Cache-Control", "no-store");
    res.send(await metrics.text());
  });
  return router;
}

function digest(value: string): Buffer {
  return createHash("sha256").update(value).digest();
}

/** The headers by which a proxy says it forwards a client; a proxy may send any one of them alone. */
const forwardingHeaders = ["forwarded", "x-forwarded-for", "x-real-ip"] as const;

/** The connection comes from this machine, and no proxy on it says it forwards a client, whichever it names. */
function isLoopbackClient(req: Request): boolean {
  return isLoopback(req.socket.remoteAddress) && forwardingHeaders.every((name) => req.get(name) === undefined);
}

function isLoopback(address: string | undefined): boolean {
  if (!address || isIP(address) === 0) return false;
  const parsed = ipaddr.process(address);
  return parsed.range() === "loopback";
}
