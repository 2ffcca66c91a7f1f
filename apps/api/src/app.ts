import { openApiV2Path } from "@verbatim/contract";
import express, { type Express, Router } from "express";
import * as OpenApiValidator from "express-openapi-validator";
import { pinoHttp } from "pino-http";
import type { AppDeps } from "./deps.ts";
import { ApiError } from "./errors.ts";
import { apiReference } from "./http/api-reference.ts";
import { authenticate } from "./http/auth.ts";
import { errorCatalog } from "./http/error-catalog.ts";
import { errorHandler, routeNotFound } from "./http/error-handler.ts";
import { idempotent } from "./http/idempotency.ts";
import { mcpRoutes } from "./http/mcp.ts";
import { v2Operations } from "./http/operations.ts";
import { assignRequestId } from "./http/request-id.ts";
import { recordSentBodyFields } from "./http/route.ts";
import { allowanceOf, liveRoutes, pendingOperations, publicOperations } from "./http/routes/index.ts";

/** The most a request body may hold. */
const maxBodyBytes = 1024 * 1024;

/** Builds the HTTP application from its dependencies. It has no side effects: `main.ts` listens. */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("trust proxy", "loopback");
  app.use(assignRequestId());
  app.use(
    pinoHttp({
      logger: deps.logger,
      genReqId: (_req, res) => String(res.getHeader("X-Request-Id")),
      customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? "error" : "info"),
      // One line per request without headers: they carry API keys.
      serializers: {
        req: (req: { method: string; url: string }) => ({ method: req.method, url: req.url }),
        res: (res: { statusCode: number }) => ({ status: res.statusCode }),
      },
    }),
  );
  app.use("/api/v2", v2Router(deps));
  // Outside /api/v2: MCP is not an operation of the contract, and its validator would refuse it.
  app.use(mcpRoutes(deps));
  app.use("/docs/errors", errorCatalog());
  app.use(apiReference(deps));
  app.use((req, _res, next) => next(routeNotFound(req)));
  app.use(errorHandler(deps));
  return app;
}

function v2Router(deps: AppDeps): Router {
  const router = Router();
  // HEAD is GET without the body (RFC 9110 9.3.2); the contract names only GET, so HEAD runs as
  // GET, and Node's response, which knows the request was HEAD, sends no body.
  router.use((req, _res, next) => {
    if (req.method === "HEAD") req.method = "GET";
    next();
  });
  // The key is checked before the body is read (spec 5): a request without a valid key hears 401, whatever it sent.
  // Only operations that take a body parse one, so nothing is parsed for an unknown path, a GET, or a stranger.
  const parseJson = express.json({ limit: maxBodyBytes });
  for (const operation of v2Operations) {
    const guards = publicOperations.has(operation.operationId)
      ? []
      : [authenticate(deps, allowanceOf(operation.operationId))];
    const takesBody = operation.method === "post" || operation.method === "patch" || operation.method === "put";
    if (guards.length > 0 || takesBody) {
      router[operation.method](operation.expressPath, ...guards, ...(takesBody ? [parseJson] : []));
    }
  }
  // The validator fills in defaults; routes that must tell "sent" from "defaulted" read this.
  router.use(recordSentBodyFields());
  router.use(
    OpenApiValidator.middleware({
      apiSpec: openApiV2Path,
      validateApiSpec: false,
      validateRequests: { allErrors: true, allowUnknownQueryParameters: false },
      // The default "fast" format mode lets impossible dates such as 2026-02-30 through.
      ajvFormats: { mode: "full" },
      validateResponses: deps.validateResponses ? { allErrors: true } : false,
      validateSecurity: false,
      ignoreUndocumented: false,
    }),
  );
  const live = new Map(liveRoutes(deps).map((route) => [route.operationId, route]));
  for (const operation of v2Operations) {
    const route = live.get(operation.operationId);
    const handler =
      route?.handler ??
      (() => {
        const pendingWork = pendingOperations[operation.operationId];
        throw new ApiError(
          "not_found",
          `${operation.method.toUpperCase()} /api/v2${operation.path} is part of the v2 contract but not live on this server yet (it comes with ${pendingWork ?? "later work"}).`,
        );
      });
    const guards = publicOperations.has(operation.operationId)
      ? []
      : [...(operation.idempotent ? [idempotent(deps)] : []), ...(route?.guards ?? [])];
    router[operation.method](operation.expressPath, ...guards, handler);
  }
  return router;
}
