import type { ErrorRequestHandler, Request, Response } from "express";
import { ApiError, type ValidationIssue } from "../errors.ts";
import { isAnswerable, toApiError } from "../services/failures/index.ts";
import { isStoreUnreachable } from "../store/database.ts";
import type { AppDeps } from "./app-deps.ts";
import { storeLostMidRequest } from "./auth.ts";
import { publicBaseUrl, requestIdOf } from "./locals.ts";
import { bodyTooLarge } from "./request-body.ts";

/** What express-openapi-validator and body-parser attach to the errors they raise. */
interface HttpLibraryError {
  status?: number;
  type?: string;
  /** The limit a body went over: raw-body sets it on every `entity.too.large`. */
  limit?: number;
  errors?: Array<{ path?: string; message?: string }>;
  message?: string;
}

/** The answer to a request no route matched. */
export function routeNotFound(req: Request): ApiError {
  return new ApiError("not_found", `No route for ${req.method} ${req.path}.`);
}

/** Writes an error as the body of a version's error envelope. */
export type ErrorEnvelope = (error: ApiError, req: Request, res: Response) => unknown;

/** The v2 error envelope: `{ok: false, request_id, error: {code, number, message, docs, ...}}`. */
function v2Envelope(deps: AppDeps): ErrorEnvelope {
  return (error, req, res) => ({
    ok: false,
    request_id: requestIdOf(res),
    error: error.toBody(publicBaseUrl(req, deps.config.publicUrl)),
  });
}

/**
 * Turns every failure into the error envelope. Three branches: our own `ApiError`s (and a
 * source's failure, as `toApiError` answers it), the failures of request parsing and validation,
 * and anything else, which is logged with its cause and answered as `internal_error` without
 * leaking it.
 */
export function errorHandler(deps: AppDeps, envelope: ErrorEnvelope = v2Envelope(deps)): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    const requestId = requestIdOf(res);
    const error = isAnswerable(err)
      ? toApiError(err)
      : (fromHttpLibrary(req, err) ?? storeLost(deps, err, requestId) ?? unexpected(deps, err, requestId));
    if (res.headersSent) {
      deps.logger.error({ err, request_id: requestId }, "failure after the response started");
      res.end();
      return;
    }
    countRefusal(deps, error);
    if (error.retryAfterSeconds !== undefined) res.setHeader("Retry-After", String(error.retryAfterSeconds));
    res.status(error.status).json(envelope(error, req, res));
  };
}

/** Upstream failures (5001-5199; 5201 `overloaded` is our own) by code, and balance refusals: every error answer passes here. */
function countRefusal(deps: AppDeps, error: ApiError): void {
  if (error.code === "insufficient_credits") deps.metrics.allowanceRefused("credits");
  if (error.number >= 5000 && error.number < 5200) deps.metrics.upstreamFailed(error.code);
}

/** A database that went away mid-request is an outage to retry after, not an unexpected failure. */
function storeLost(deps: AppDeps, err: unknown, requestId: string): ApiError | undefined {
  if (!isStoreUnreachable(err)) return undefined;
  deps.logger.warn({ err, request_id: requestId }, "the store could not be reached while the request ran");
  return storeLostMidRequest(err);
}

function unexpected(deps: AppDeps, err: unknown, requestId: string): ApiError {
  deps.logger.error({ err, request_id: requestId }, "unexpected failure");
  return new ApiError("internal_error", "An unexpected error occurred. Report the request_id if it persists.", {
    cause: err,
  });
}

function fromHttpLibrary(req: Request, err: unknown): ApiError | undefined {
  if (typeof err !== "object" || err === null) return undefined;
  const failure = err as HttpLibraryError;
  switch (failure.type) {
    case "entity.parse.failed":
      return invalid("The body is not valid JSON.", [{ path: "/body", message: "is not valid JSON" }]);
    case "entity.too.large":
      return bodyTooLarge(failure.limit ?? 0);
    case "encoding.unsupported":
    case "charset.unsupported":
      return invalid("The body's encoding is not supported; send UTF-8 JSON.", [
        { path: "/headers/content-type", message: "must be application/json in UTF-8" },
      ]);
  }
  switch (failure.status) {
    case 400:
      return invalidWithIssues("The request failed validation.", issuesOf(failure));
    case 415:
      return invalid("The body must be JSON, sent with Content-Type: application/json.", [
        { path: "/headers/content-type", message: "must be application/json" },
      ]);
    case 404:
    case 405:
      return new ApiError("not_found", `No route for ${req.method} ${req.originalUrl.split("?")[0]}.`);
  }
  if (failure.status !== undefined && failure.status >= 400 && failure.status < 500) {
    return invalidWithIssues(failure.message ?? "The request is invalid.", issuesOf(failure));
  }
  return undefined;
}

function invalid(message: string, issues: ValidationIssue[]): ApiError {
  return new ApiError("invalid_request", message, { extra: { issues } });
}

/** The most issues an answer lists: a body of many bad fields must not make an answer many times its size. */
export const maxIssuesListed = 50;

function invalidWithIssues(message: string, issues: ValidationIssue[]): ApiError {
  if (issues.length <= maxIssuesListed) return invalid(message, issues);
  return new ApiError(
    "invalid_request",
    `${message} The first ${maxIssuesListed} of ${issues.length} problems are listed.`,
    {
      extra: { issues: issues.slice(0, maxIssuesListed), truncated: true },
    },
  );
}

/** One issue per distinct path and message: 3.1 nullable and union schemas report the same problem several times. */
function issuesOf(failure: HttpLibraryError): ValidationIssue[] {
  const seen = new Set<string>();
  const issues: ValidationIssue[] = [];
  for (const reported of failure.errors ?? []) {
    const issue = { path: reported.path ?? "/", message: reported.message ?? "is invalid" };
    const key = `${issue.path}\n${issue.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push(issue);
  }
  if (issues.length === 0) issues.push({ path: "/", message: failure.message ?? "is invalid" });
  return issues;
}
