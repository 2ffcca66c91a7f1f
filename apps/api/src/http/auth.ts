import { parse as parseCookies } from "cookie";
import type { Request, RequestHandler, Response } from "express";
import { ApiError } from "../errors.ts";
import type { Allowance, AllowanceState, Authentication, FurtherAdmission } from "../services/accounts/index.ts";
import { apiKeyPattern, hashApiKey, sessionSecretPattern } from "../services/accounts/index.ts";
import type { AppDeps } from "./app-deps.ts";
import { allowanceOfRequest, authOf, keepAllowance, keepApiKey, keepAuth, keepDashboardSession } from "./locals.ts";
import { mcpTicketHeader } from "./mcp-ticket.ts";
import { holdSlot } from "./slots.ts";

/** The cookie that carries a dashboard session. */
export const sessionCookieName = "verbatim_session";

/** Methods that change nothing, which a dashboard session may send without its CSRF token. */
const safeMethods = new Set(["GET", "HEAD", "OPTIONS"]);

/** Seconds a client should wait when admission is closed. */
const admissionRetryAfterSeconds = 5;

/**
 * Requires a valid API key, or a dashboard session's cookie, and counts the request against its
 * allowance: both are rows of `api_keys` and share the account's allowance (docs/decisions.md,
 * rule 6). A missing, malformed, unknown or revoked credential gets the same 401; an exhausted
 * allowance a 429 with `Retry-After`; an unreachable store a 503 `overloaded` before any work. A
 * session's state change must carry its CSRF token.
 *
 * For an operation that holds an extraction slot, the admission takes one in the same
 * statement when one is free, so the request needs no round trip of its own for it; a request
 * that may be a replay (`Idempotency-Key`) needs none, and takes it later if it runs.
 */
export function authenticate(
  deps: AppDeps,
  allowance: Allowance,
  options: { extractionSlot?: boolean } = {},
): RequestHandler {
  return async (req, res, next) => {
    const credential = credentialOf(req);
    if (!credential) throw unauthorized();
    const takeSlot = options.extractionSlot === true && req.get("idempotency-key") === undefined;
    const auth =
      admittedAtMcp(deps, req, res, credential, allowance) ??
      (await admit(deps, res, credential.secret, allowance, takeSlot));
    if (auth.slot) holdSlot(deps, res, auth.slot);
    if (credential.kind === "session") {
      await requireCsrfToken(deps, req, auth.keyId);
      keepDashboardSession(res, auth.keyId);
    }
    keepAuth(res, auth);
    keepAllowance(res, allowance);
    next();
  };
}

/**
 * Counts a request of a key or session secret against its allowance, and sets the
 * `X-RateLimit-*` headers: 401 for an unknown or revoked one, 429 with `Retry-After` when the
 * allowance is used up, 503 `overloaded` when the store cannot be reached.
 */
export async function admit(
  deps: AppDeps,
  res: Response,
  secret: string,
  allowance: Allowance,
  takeSlot = false,
): Promise<Authentication> {
  const now = deps.now();
  let auth: Authentication | null;
  try {
    const slots = takeSlot ? deps.platform.slots : undefined;
    auth = await deps.platform.authenticator.authenticate(hashApiKey(secret), allowance, now, slots);
  } catch (cause) {
    throw storeUnreachable(cause);
  }
  if (!auth) throw unauthorized();
  setRateLimitHeaders(res, auth.allowance);
  if (!auth.admitted) {
    deps.metrics.allowanceRefused(allowance === "poll" ? "polling" : "requests");
    const retryAfter = Math.max(1, Math.ceil((auth.allowance.resetAt.getTime() - now.getTime()) / 1000));
    throw new ApiError(
      "rate_limited",
      `The ${allowance === "poll" ? "polling" : "request"} allowance of ${auth.allowance.limit} per minute is used up. Retry after ${retryAfter} seconds.`,
      { retryAfterSeconds: retryAfter },
    );
  }
  return auth;
}

/**
 * Counts the rest of a request's weight against the allowance that admitted it as one request
 * (docs/decisions.md, rule 6) and sets the `X-RateLimit-*` headers after it: 429 `rate_limited`
 * with `Retry-After` when the window has no room for the whole weight, of which nothing more is
 * then counted. `what` names the request in the refusal.
 */
export async function admitWeight(deps: AppDeps, res: Response, weight: number, what: string): Promise<void> {
  if (weight <= 1) return;
  const auth = authOf(res);
  const allowance = allowanceOfRequest(res);
  const now = deps.now();
  let further: FurtherAdmission | null;
  try {
    further = await deps.platform.authenticator.admitMore(auth.keyId, allowance, weight - 1, now);
  } catch (cause) {
    throw storeUnreachable(cause);
  }
  if (!further) throw unauthorized();
  setRateLimitHeaders(res, further.allowance);
  if (further.admitted) return;
  deps.metrics.allowanceRefused(allowance === "poll" ? "polling" : "requests");
  const { limit } = further.allowance;
  const fitsAt = further.fitsAt ?? further.allowance.resetAt;
  const retryAfter = Math.max(1, Math.ceil((fitsAt.getTime() - now.getTime()) / 1000));
  throw new ApiError(
    "rate_limited",
    `${what} counts as ${Math.min(weight, limit)} requests of the ${allowance === "poll" ? "polling" : "request"} allowance of ${limit} per minute, which has room for ${further.allowance.remaining}. Retry after ${retryAfter} seconds.`,
    { retryAfterSeconds: retryAfter },
  );
}

/**
 * The admission of a `POST /mcp` tool call whose API request this is: counted at `/mcp` against
 * this same allowance, so not counted again. Its slot, when the operation holds one, is taken later.
 */
function admittedAtMcp(
  deps: AppDeps,
  req: Request,
  res: Response,
  credential: { secret: string; kind: "key" | "session" },
  allowance: Allowance,
): Authentication | undefined {
  if (credential.kind !== "key") return undefined;
  const ticket = req.get(mcpTicketHeader);
  const auth = deps.platform.toolCallAdmissions.take(ticket, hashApiKey(credential.secret), allowance);
  if (auth) setRateLimitHeaders(res, auth.allowance);
  return auth;
}

/** A dashboard session's state change must send the session's CSRF token as `X-CSRF-Token`. */
async function requireCsrfToken(deps: AppDeps, req: Request, sessionId: string): Promise<void> {
  if (safeMethods.has(req.method)) return;
  const token = req.get("x-csrf-token");
  if (token && (await deps.platform.dashboard.verifyCsrfToken(sessionId, token))) return;
  throw new ApiError("invalid_request", "A change made with a dashboard session needs the session's X-CSRF-Token.", {
    extra: { issues: [{ path: "/headers/x-csrf-token", message: "must be the session's csrf_token" }] },
  });
}

/**
 * Requires a valid API key without counting the request against an allowance, and keeps the key
 * (`apiKeyOf`): for the MCP endpoint, which checks the key before it reads the body and
 * counts each message of the body once it has read it.
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
    keepApiKey(res, key);
    next();
  };
}

/**
 * What authenticates the request: `Authorization: Bearer <key>`, or without that header the
 * dashboard session's cookie. A malformed one of either is none.
 */
function credentialOf(req: Request): { secret: string; kind: "key" | "session" } | undefined {
  if (req.get("authorization") !== undefined) {
    const key = bearerKeyOf(req);
    return key ? { secret: key, kind: "key" } : undefined;
  }
  const session = parseCookies(req.get("cookie") ?? "")[sessionCookieName];
  return session && sessionSecretPattern.test(session) ? { secret: session, kind: "session" } : undefined;
}

/** The API key of `Authorization: Bearer <key>`, when the header holds a well-formed one. */
function bearerKeyOf(req: Request): string | undefined {
  const key = /^Bearer (\S+)$/i.exec(req.get("authorization") ?? "")?.[1];
  return key && apiKeyPattern.test(key) ? key : undefined;
}

/**
 * A store that fails while a request reads it: 503 `overloaded` with `Retry-After`
 * (docs/decisions.md, rule 12), as at admission, instead of a 500 `internal_error` a client
 * would not retry. An `ApiError` (a bad period, a missing account) passes unchanged.
 */
export function storeUnreachable(cause: unknown): ApiError {
  if (cause instanceof ApiError) return cause;
  return overloaded("Admission is closed: the store cannot be reached. Nothing ran.", cause);
}

/**
 * A store lost while an admitted request ran: 503 `overloaded` with `Retry-After` as well
 * (docs/decisions.md, rule 12), not a 500. Whatever the request charged is in the ledger under
 * its request id.
 */
export function storeLostMidRequest(cause: unknown): ApiError {
  return overloaded("The store could not be reached while the request ran. Retry later.", cause);
}

function overloaded(message: string, cause: unknown): ApiError {
  return new ApiError("overloaded", message, { retryAfterSeconds: admissionRetryAfterSeconds, cause });
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
