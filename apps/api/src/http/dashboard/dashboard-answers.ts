import type { DashboardOperationId, DashboardResponseBody } from "@verbatim/contract";
import type { RequestHandler, Response } from "express";
import { ApiError } from "../../errors.ts";
import { type DashboardSessions, usageBlock } from "../../services/accounts/index.ts";
import { authOf, dashboardSessionOf, requestIdOf } from "../locals.ts";
import type { LiveRoute } from "../route.ts";

export type DashboardRoute = LiveRoute<DashboardOperationId>;

/** Sends a response body typed by the dashboard's contract. */
export function send<Op extends DashboardOperationId, Status extends number>(
  res: Response,
  _operationId: Op,
  status: Status,
  body: DashboardResponseBody<Op, Status>,
): void {
  res.status(status).json(body);
}

/** The envelope around a dashboard answer: nothing is charged, the balance is the one authentication read. */
export function envelope<T>(res: Response, data: T) {
  const { credits } = authOf(res);
  return { ok: true as const, request_id: requestIdOf(res), data, usage: usageBlock(0, credits) };
}

/** An API key may not manage keys or read secrets: only a signed-in dashboard session may. */
export const requireSession: RequestHandler = (_req, res, next) => {
  if (!dashboardSessionOf(res)) {
    throw new ApiError("unauthorized", "This operation needs a dashboard session: sign in at /dashboard.");
  }
  next();
};

/** Credentials and secrets change only in a session opened by a sign-in link, the owner's. */
export function linkSessionGuards(dashboard: DashboardSessions): RequestHandler[] {
  return [
    requireSession,
    (async (_req, res, next) => {
      await dashboard.requireLinkSession(authOf(res).accountId, dashboardSessionOf(res) as string);
      next();
    }) satisfies RequestHandler,
  ];
}
