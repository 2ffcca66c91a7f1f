import { type DashboardOperationId, openApiJsonPaths } from "@verbatim/contract";
import type { ApiVersion } from "../api-router.ts";
import type { AppDeps } from "../app-deps.ts";
import { admit } from "../auth.ts";
import { keepAuth } from "../locals.ts";
import { dashboardOperations } from "../operations.ts";
import { accountRoutes } from "./account.ts";
import type { DashboardRoute } from "./dashboard-answers.ts";
import { keyRoutes } from "./keys.ts";
import { sessionRoutes } from "./sessions.ts";
import { webhookRoutes } from "./webhooks.ts";

/** The dashboard's API at `/dashboard/api`: only sign-in is public; the rest needs a dashboard session. */
export function dashboardApi(): ApiVersion<DashboardOperationId> {
  return {
    basePath: "/dashboard/api",
    documentPath: openApiJsonPaths.dashboard,
    operations: dashboardOperations,
    publicOperations: new Set(["signIn"]),
    allowanceOf: () => "request",
  };
}

/** The operations of the dashboard's API, by resource. */
export function dashboardRoutes(deps: AppDeps): DashboardRoute[] {
  const { accounts, dashboard, webhookLog } = deps.platform;
  const admitSignIn = async (res: Parameters<typeof keepAuth>[0], secret: string) => {
    keepAuth(res, await admit(deps, res, secret, "request"));
  };
  return [
    ...sessionRoutes(dashboard, admitSignIn),
    ...accountRoutes(accounts),
    ...keyRoutes(accounts, dashboard),
    ...webhookRoutes(accounts, dashboard, webhookLog),
  ];
}
