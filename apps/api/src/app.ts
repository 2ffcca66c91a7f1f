import { openApiJsonPaths } from "@verbatim/contract";
import { dashboardDist } from "@verbatim/dashboard";
import express, { type Express } from "express";
import { apiReference } from "./http/api-reference.ts";
import { apiRouter } from "./http/api-router.ts";
import type { AppDeps } from "./http/app-deps.ts";
import { dashboardApi, dashboardRoutes } from "./http/dashboard/api.ts";
import { dashboardApp } from "./http/dashboard/app.ts";
import { errorCatalog } from "./http/error-catalog.ts";
import { errorHandler, routeNotFound } from "./http/error-handler.ts";
import { mcpRoutes } from "./http/mcp.ts";
import { countRequests, metricsEndpoint } from "./http/metrics.ts";
import { v2Operations } from "./http/operations.ts";
import { assignRequestId } from "./http/request-id.ts";
import { logRequests } from "./http/request-log.ts";
import { allowanceOf, liveRoutes, pendingOperations, publicOperations } from "./http/routes/index.ts";
import { apiV1 } from "./http/v1/version.ts";

/** Builds the HTTP application from its dependencies. It has no side effects: `main.ts` listens. */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("trust proxy", "loopback");
  app.use(assignRequestId());
  app.use(countRequests(deps.metrics));
  app.use(logRequests(deps.logger));
  // One set of routes, and so one set of services, answers both versions.
  const routes = liveRoutes(deps);
  app.use(
    "/api/v2",
    apiRouter(
      deps,
      {
        basePath: "/api/v2",
        documentPath: openApiJsonPaths.v2,
        operations: v2Operations,
        publicOperations,
        allowanceOf,
        pendingWork: pendingOperations,
      },
      routes,
    ),
  );
  app.use("/api/v1", apiRouter(deps, apiV1(deps), routes));
  app.use("/dashboard/api", apiRouter(deps, dashboardApi(), dashboardRoutes(deps)));
  app.use(dashboardApp(dashboardDist));
  // Outside /api/v2: MCP is not an operation of the contract, and its validator would refuse it.
  app.use(mcpRoutes(deps));
  app.use(metricsEndpoint(deps.metrics, deps.platform.store, { token: deps.config.metricsToken }));
  app.use("/docs/errors", errorCatalog());
  app.use(apiReference(deps));
  app.use((req, _res, next) => next(routeNotFound(req)));
  app.use(errorHandler(deps));
  return app;
}
