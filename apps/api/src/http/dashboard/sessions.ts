import type { DashboardRequestBody } from "@verbatim/contract";
import type { Request, Response } from "express";
import { ApiError } from "../../errors.ts";
import { type DashboardSessions, mayEnd, type SignInMethod } from "../../services/accounts/index.ts";
import { sessionCookieName } from "../auth.ts";
import { authOf, dashboardSessionOf } from "../locals.ts";
import { bodyOf } from "../route.ts";
import { type DashboardRoute, envelope, requireSession, send } from "./dashboard-answers.ts";

/** Counts a sign-in as a request of the secret it signs in with, for the response it answers. */
export type SignInAdmission = (res: Response, secret: string) => Promise<void>;

/** The session cookie: HttpOnly, SameSite=Strict, for the whole origin (the dashboard calls `/api/v2` too), Secure over https. */
function setSessionCookie(req: Request, res: Response, secret: string, expires: Date): void {
  res.cookie(sessionCookieName, secret, { httpOnly: true, sameSite: "strict", secure: req.secure, path: "/", expires });
}

/** Signing in and out, and the account's sessions. */
export function sessionRoutes(dashboard: DashboardSessions, admit: SignInAdmission): DashboardRoute[] {
  const sessionData = async (
    session: { id: string; signedInWith: SignInMethod; expiresAt: Date },
    accountId: string,
  ) => ({
    kind: "dashboard_session" as const,
    id: session.id,
    account_id: accountId,
    signed_in_with: session.signedInWith,
    can_manage_credentials: session.signedInWith === "link",
    csrf_token: await dashboard.csrfTokenOf(session.id),
    expires_at: session.expiresAt.toISOString(),
  });

  return [
    {
      operationId: "signIn",
      handler: async (req, res) => {
        const body = bodyOf<DashboardRequestBody<"signIn">>(req);
        const session = await dashboard.signIn(body, (secret) => admit(res, secret));
        setSessionCookie(req, res, session.secret, session.expiresAt);
        send(
          res,
          "signIn",
          200,
          envelope(res, await sessionData({ id: session.sessionId, ...session }, session.accountId)),
        );
      },
    },
    {
      operationId: "getSession",
      guards: [requireSession],
      handler: async (_req, res) => {
        const { accountId } = authOf(res);
        const session = await dashboard.find(accountId, dashboardSessionOf(res) as string);
        if (!session) throw new ApiError("unauthorized", "The session has ended. Sign in again.");
        send(res, "getSession", 200, envelope(res, await sessionData(session, accountId)));
      },
    },
    {
      operationId: "signOut",
      guards: [requireSession],
      handler: async (req, res) => {
        await dashboard.end(dashboardSessionOf(res) as string);
        res.clearCookie(sessionCookieName, { httpOnly: true, sameSite: "strict", secure: req.secure, path: "/" });
        res.status(204).end();
      },
    },
    {
      operationId: "listSessions",
      guards: [requireSession],
      handler: async (_req, res) => {
        const current = dashboardSessionOf(res);
        const sessions = await dashboard.list(authOf(res).accountId);
        const asking = sessions.find((session) => session.id === current)?.signedInWith ?? "api_key";
        send(
          res,
          "listSessions",
          200,
          envelope(res, {
            kind: "dashboard_session_list",
            sessions: sessions.map((session) => ({
              kind: "dashboard_session_summary" as const,
              id: session.id,
              signed_in_with: session.signedInWith,
              api_key: session.apiKey,
              created_at: session.createdAt.toISOString(),
              last_used_at: session.lastUsedAt?.toISOString() ?? null,
              expires_at: session.expiresAt.toISOString(),
              current: session.id === current,
              can_end: mayEnd(asking, session.signedInWith),
            })),
          }),
        );
      },
    },
    {
      operationId: "endSession",
      guards: [requireSession],
      handler: async (req, res) => {
        const sessionId = String(req.params.sessionId);
        if (!(await dashboard.endAskedBy(authOf(res).accountId, dashboardSessionOf(res) as string, sessionId))) {
          throw new ApiError("not_found", `No open session ${sessionId} on this account.`);
        }
        res.status(204).end();
      },
    },
  ];
}
