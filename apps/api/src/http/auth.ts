import type { Request, RequestHandler, Response } from "express";
import type { AppDeps } from "../deps.ts";
import { ApiError } from "../errors.ts";
import { apiKeyPattern, hashApiKey } from "../services/api-keys.ts";
import type { Allowance, AllowanceState, Authentication } from "../services/authenticator.ts";

/** Seconds a client should wait when admission is closed. */
const admissionRetryAfterSeconds = 5;

/** The authentication of the request; set by `authenticate`. */
export function authOf(res: Response): Authentication {
  const auth = res.locals.auth as Authentication | undefined;
  if (!auth) throw new Error("route needs authentication but none ran");
  return auth;
}

/**
 * Requires a valid API key and counts the request against its allowance. A missing,
 * malformed, unknown or revoked key gets the same 401; an exhausted allowance a 429 with
 * `Retry-After`; an unreachable store a 503 `overloaded` before any work.
 */
export function authenticate(deps: AppDeps, allowance: Allowance): RequestHandler {
  return async (req, res, next) => {
    const key = bearerKeyOf(req);
    if (!key) throw unauthorized();
    const now = deps.now();
    let auth: Authentication | null;
    try {
      auth = await deps.platform.authenticator.authenticate(hashApiKey(key), allowance, now);
    } catch (cause) {
      throw storeUnreachable(cause);
    }
    if (!auth) throw unauthorized();
    setRateLimitHeaders(res, auth.allowance);
    if (!auth.admitted) {
      const retryAfter = Math.max(1, Math.ceil((auth.allowance.resetAt.getTime() - now.getTime()) / 1000));
      throw new ApiError(
        "rate_limited",
        `The ${allowance === "poll" ? "polling" : "request"} allowance of ${auth.allowance.limit} per minute is used up. Retry after ${retryAfter} seconds.`,
        { retryAfterSeconds: retryAfter },
      );
    }
    res.locals.auth = auth;
    next();
  };
}

/**
 * Requires a valid API key without counting the request against an allowance, and keeps the key
 * in `res.locals.apiKey`: for the MCP endpoint, whose tool calls each run as an API request with
 * that key and are counted and charged there.
 */
export function requireApiKey(deps: AppDeps): RequestHandler {
  return async (req, res, next) => {
    const key = bearerKeyOf(req);
    if (!key) throw unauthorized();
    let active: boolean;
    try {
      active = await deps.platform.authenticator.isActive(hashApiKey(key), deps.now());
    } catch (cause) {
      throw storeUnreachable(cause);
    }
    if (!active) throw unauthorized();
    res.locals.apiKey = key;
    next();
  };
}

/** The API key of `Authorization: Bearer <key>`, when the header holds a well-formed one. */
function bearerKeyOf(req: Request): string | undefined {
  const key = /^Bearer (\S+)$/i.exec(req.get("authorization") ?? "")?.[1];
  return key && apiKeyPattern.test(key) ? key : undefined;
}

/**
 * A store that fails while a request reads it: 503 `overloaded` with `Retry-After` (spec 7.4 rule
 * 3), as at admission, instead of a 500 `internal_error` a client would not retry. An `ApiError`
 * (a bad period, a missing account) passes unchanged.
 */
export function storeUnreachable(cause: unknown): ApiError {
  if (cause instanceof ApiError) return cause;
  return new ApiError("overloaded", "Admission is closed: the store cannot be reached. Nothing ran.", {
    retryAfterSeconds: admissionRetryAfterSeconds,
    cause,
  });
}

function unauthorized(): ApiError {
  return new ApiError(
    "unauthorized",
    "Missing, malformed, unknown or revoked API key. Send Authorization: Bearer <key>.",
  );
}

function setRateLimitHeaders(res: Response, state: AllowanceState): void {
  res.setHeader("X-RateLimit-Limit", String(state.limit));
  res.setHeader("X-RateLimit-Remaining", String(state.remaining));
  res.setHeader("X-RateLimit-Reset", String(Math.ceil(state.resetAt.getTime() / 1000)));
}
