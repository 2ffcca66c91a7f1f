import { type OperationId, openApiJsonPaths, type V1OperationId } from "@verbatim/contract";
import type { RequestHandler, Response } from "express";
import { ApiError } from "../../errors.ts";
import { youtubeListPlatform } from "../../sources/youtube/youtube-listings.ts";
import type { ApiVersion } from "../api-router.ts";
import type { AppDeps } from "../app-deps.ts";
import { type ErrorEnvelope, errorHandler } from "../error-handler.ts";
import { keepListScope, type ListScope, optionalAuthOf, requestIdOf } from "../locals.ts";
import { v1Operations } from "../operations.ts";
import { allowanceOf, pendingOperations, publicOperations } from "../routes/index.ts";
import { aiFallbackOf, reasonOf, v1CodeOf } from "./errors.ts";
import { v1BodyOf } from "./shapes.ts";

/** When v1 was deprecated: the day v2 became the current version. */
export const v1DeprecatedAt = new Date("2026-01-01T00:00:00Z");

/** The headers of every v1 response (RFC 9745 `Deprecation`, RFC 8288 `Link`). */
export const v1DeprecationHeaders = {
  Deprecation: `@${Math.floor(v1DeprecatedAt.getTime() / 1000)}`,
  Link: '</api/v2>; rel="successor-version"',
} as const;

/**
 * API v1 at `/api/v1`: the v2 routes, validated against the v1 document, answering in v1's
 * shapes. Keys, allowances, slots, idempotency and the credit ledger are the same; an
 * `Idempotency-Key` is the account's across versions, and names one request: the same key on
 * the other version's endpoint is a different request (409 `idempotency_conflict`).
 */
export function apiV1(deps: AppDeps): ApiVersion<OperationId> {
  return {
    basePath: "/api/v1",
    documentPath: openApiJsonPaths.v1,
    operations: v1Operations,
    publicOperations,
    allowanceOf,
    pendingWork: pendingOperations,
    onEveryRequest: (_req, res, next) => {
      res.set(v1DeprecationHeaders);
      next();
    },
    aroundRoute: answerInV1Shape,
    errorHandler: errorHandler(deps, v1ErrorEnvelope),
  };
}

/** v1's lists are YouTube's (docs/decisions.md, "v1"): its rows and pages have no word for another platform. */
const v1ListScope: ListScope = {
  platforms: [youtubeListPlatform],
  refusal: (label) =>
    new ApiError("endpoint_platform_mismatch", `API v1 lists YouTube only, not ${label}; API v2 lists it.`, {
      extra: { retry_with: { endpoint: "/api/v2/transcripts/channel" } },
    }),
};

const listOperations: ReadonlySet<OperationId> = new Set(["fetchChannelVideos", "fetchPlaylistVideos", "searchVideos"]);

/** Rewrites the route's successful v2 answer into v1's shape; failures are written by the v1 error handler. */
function answerInV1Shape(operationId: OperationId): RequestHandler {
  if (!isV1Operation(operationId)) throw new TypeError(`${operationId} is not an operation of v1`);
  const lists = listOperations.has(operationId);
  return (_req, res, next) => {
    if (lists) keepListScope(res, v1ListScope);
    const send = res.json.bind(res);
    res.json = (body: unknown) => send(res.statusCode < 400 ? v1BodyOf(operationId, res.statusCode, body) : body);
    next();
  };
}

function isV1Operation(operationId: OperationId): operationId is V1OperationId {
  return v1Operations.some((operation) => operation.operationId === operationId);
}

/** The v1 error envelope: `{ok: false, request_id, error: {code, message, issues?}}`, with `reason` and `ai_fallback` on transcript failures. */
const v1ErrorEnvelope: ErrorEnvelope = (error, req, res) => {
  const issues = error.extra !== undefined && "issues" in error.extra ? { issues: error.extra.issues } : {};
  const reason = reasonOf(error.code);
  const aiFallback =
    req.method === "POST" && req.path === "/transcripts/video" ? aiFallbackOf(error, balanceOf(res)) : undefined;
  return {
    ok: false,
    request_id: requestIdOf(res),
    error: { code: v1CodeOf(error.code), message: error.message, ...issues },
    ...(reason === undefined ? {} : { reason }),
    ...(aiFallback === undefined ? {} : { ai_fallback: aiFallback }),
  };
};

function balanceOf(res: Response): number | null | undefined {
  return optionalAuthOf(res)?.credits;
}
