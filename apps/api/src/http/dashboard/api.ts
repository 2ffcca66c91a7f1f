import {
  type DashboardOperationId,
  type DashboardRequestBody,
  type DashboardResponseBody,
  openApiJsonPaths,
} from "@verbatim/contract";
import type { Request, RequestHandler, Response } from "express";
import type { AppDeps } from "../../deps.ts";
import { ApiError } from "../../errors.ts";
import type { ApiKeyView } from "../../services/accounts/index.ts";
import { mayEnd, type NewSession, type SignInMethod, usageBlock } from "../../services/accounts/index.ts";
import type { ApiVersion } from "../api-router.ts";
import { admit, sessionCookieName } from "../auth.ts";
import { authOf, dashboardSessionOf, keepAuth, requestIdOf } from "../locals.ts";
import { dashboardOperations } from "../operations.ts";
import { bodyOf, type LiveRoute } from "../route.ts";

type Route = LiveRoute<DashboardOperationId>;

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

/** Sends a response body typed by the dashboard's contract. */
function send<Op extends DashboardOperationId, Status extends number>(
  res: Response,
  _operationId: Op,
  status: Status,
  body: DashboardResponseBody<Op, Status>,
): void {
  res.status(status).json(body);
}

/** An API key may not manage keys or read secrets: only a signed-in dashboard session may. */
const requireSession: RequestHandler = (_req, res, next) => {
  if (!dashboardSessionOf(res)) {
    throw new ApiError("unauthorized", "This operation needs a dashboard session: sign in at /dashboard.");
  }
  next();
};

/** The envelope around a dashboard answer: nothing is charged, the balance is the one authentication read. */
function envelope<T>(res: Response, data: T) {
  const { credits } = authOf(res);
  return { ok: true as const, request_id: requestIdOf(res), data, usage: usageBlock(0, credits) };
}

function keyOf(view: ApiKeyView) {
  return {
    kind: "api_key" as const,
    id: view.id,
    prefix: view.prefix,
    requests_per_minute: view.requests_per_minute,
    created_at: view.created_at,
    last_used_at: view.last_used_at,
    revoked_at: view.revoked_at,
  };
}

/** The session cookie: HttpOnly, SameSite=Strict, for the whole origin (the dashboard calls `/api/v2` too), Secure over https. */
function setSessionCookie(req: Request, res: Response, secret: string, expires: Date): void {
  res.cookie(sessionCookieName, secret, { httpOnly: true, sameSite: "strict", secure: req.secure, path: "/", expires });
}

/** The operations of the dashboard's API. */
export function dashboardRoutes(deps: AppDeps): Route[] {
  const { accounts, dashboard, webhookLog } = deps.platform;
  const sessionGuards = [requireSession];

  /**
   * Signing in with a key is a request of that key (docs/decisions.md, rule 2): it counts against the key's
   * allowance before anything is written, so refused sign-ins leave no session behind.
   */
  const signInWithKey = async (res: Response, apiKey: string): Promise<NewSession> => {
    keepAuth(res, await admit(deps, res, apiKey, "request"));
    const session = await dashboard.openWithKey(apiKey);
    if (!session) {
      throw new ApiError(
        "unauthorized",
        "This key is being rotated or was revoked: sign in with the key that replaced it.",
      );
    }
    return session;
  };

  /** A link names its account only once redeemed, so its session counts itself, and is undone when refused. */
  const signInWithLink = async (res: Response, token: string): Promise<NewSession> => {
    const session = await dashboard.openWithLink(token);
    if (!session) {
      throw new ApiError(
        "unauthorized",
        "The sign-in link is unknown, expired or already used. Ask the operator for a new one.",
      );
    }
    try {
      keepAuth(res, await admit(deps, res, session.secret, "request"));
    } catch (refused) {
      await dashboard.discard(session);
      throw refused;
    }
    return session;
  };

  const linkSessionGuards = [
    requireSession,
    (async (_req, res, next) => {
      await dashboard.requireLinkSession(authOf(res).accountId, dashboardSessionOf(res) as string);
      next();
    }) satisfies RequestHandler,
  ];

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
        if ((body.api_key === undefined) === (body.link_token === undefined)) {
          throw new ApiError("invalid_request", "Sign in with api_key or with link_token: one of the two.", {
            extra: { issues: [{ path: "/body", message: "must have exactly one of api_key and link_token" }] },
          });
        }
        const session =
          body.api_key !== undefined
            ? await signInWithKey(res, body.api_key)
            : await signInWithLink(res, body.link_token as string);
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
      guards: sessionGuards,
      handler: async (_req, res) => {
        const { accountId } = authOf(res);
        const session = await dashboard.find(accountId, dashboardSessionOf(res) as string);
        if (!session) throw new ApiError("unauthorized", "The session has ended. Sign in again.");
        send(res, "getSession", 200, envelope(res, await sessionData(session, accountId)));
      },
    },
    {
      operationId: "signOut",
      guards: sessionGuards,
      handler: async (req, res) => {
        await dashboard.end(dashboardSessionOf(res) as string);
        res.clearCookie(sessionCookieName, { httpOnly: true, sameSite: "strict", secure: req.secure, path: "/" });
        res.status(204).end();
      },
    },
    {
      operationId: "listSessions",
      guards: sessionGuards,
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
      guards: sessionGuards,
      handler: async (req, res) => {
        const sessionId = String(req.params.sessionId);
        if (!(await dashboard.endAskedBy(authOf(res).accountId, dashboardSessionOf(res) as string, sessionId))) {
          throw new ApiError("not_found", `No open session ${sessionId} on this account.`);
        }
        res.status(204).end();
      },
    },
    {
      operationId: "getAccount",
      guards: sessionGuards,
      handler: async (_req, res) => {
        const auth = authOf(res);
        const account = await accounts.show(auth.accountId);
        const allowance = auth.requestAllowance;
        send(
          res,
          "getAccount",
          200,
          envelope(res, {
            kind: "dashboard_account",
            account_id: account.id,
            name: account.name,
            plan: account.plan,
            credits: account.credits,
            next_refill_at: account.next_refill_at,
            rate_limit: {
              limit: allowance.limit,
              remaining: allowance.remaining,
              reset: Math.ceil(allowance.resetAt.getTime() / 1000),
            },
          }),
        );
      },
    },
    {
      operationId: "listKeys",
      guards: sessionGuards,
      handler: async (req, res) => {
        const before = typeof req.query.before === "string" ? req.query.before : undefined;
        const page = await accounts.keys.list(authOf(res).accountId, {
          limit: Number(req.query.limit ?? 100),
          ...(before === undefined ? {} : { before }),
        });
        send(
          res,
          "listKeys",
          200,
          envelope(res, { kind: "api_key_list", keys: page.keys.map(keyOf), next_before: page.nextBefore }),
        );
      },
    },
    {
      operationId: "createKey",
      guards: linkSessionGuards,
      handler: async (req, res) => {
        const body = bodyOf<DashboardRequestBody<"createKey">>(req);
        const issued = await accounts.keys.create(authOf(res).accountId, body.requests_per_minute ?? null);
        send(res, "createKey", 200, envelope(res, { kind: "issued_api_key", key: issued.key, api_key: keyOf(issued) }));
      },
    },
    {
      operationId: "updateKey",
      guards: linkSessionGuards,
      handler: async (req, res) => {
        const body = bodyOf<DashboardRequestBody<"updateKey">>(req);
        const key = await accounts.keys.setLimit(
          String(req.params.keyId),
          body.requests_per_minute,
          authOf(res).accountId,
        );
        send(res, "updateKey", 200, envelope(res, keyOf(key)));
      },
    },
    {
      operationId: "revokeKey",
      guards: linkSessionGuards,
      handler: async (req, res) => {
        const key = await accounts.keys.revoke(String(req.params.keyId), authOf(res).accountId);
        send(res, "revokeKey", 200, envelope(res, keyOf(key)));
      },
    },
    {
      operationId: "rotateKey",
      guards: linkSessionGuards,
      handler: async (req, res) => {
        const body = bodyOf<DashboardRequestBody<"rotateKey">>(req);
        const { issued, revoked } = await accounts.keys.rotate(
          String(req.params.keyId),
          body.grace_seconds ?? 0,
          authOf(res).accountId,
        );
        send(
          res,
          "rotateKey",
          200,
          envelope(res, { kind: "rotated_api_key", key: issued.key, api_key: keyOf(issued), revoked: keyOf(revoked) }),
        );
      },
    },
    {
      operationId: "getWebhookSecret",
      guards: linkSessionGuards,
      handler: async (_req, res) => {
        const secret = await accounts.webhookSecret(authOf(res).accountId);
        send(res, "getWebhookSecret", 200, envelope(res, { kind: "webhook_secret", secret }));
      },
    },
    {
      operationId: "rotateWebhookSecret",
      guards: linkSessionGuards,
      handler: async (_req, res) => {
        const secret = await accounts.rotateWebhookSecret(authOf(res).accountId);
        send(res, "rotateWebhookSecret", 200, envelope(res, { kind: "webhook_secret", secret }));
      },
    },
    {
      operationId: "listWebhookDeliveries",
      guards: sessionGuards,
      handler: async (req, res) => {
        const limit = Number(req.query.limit ?? 20);
        const before = typeof req.query.before === "string" ? req.query.before : undefined;
        const page = await webhookLog.list(authOf(res).accountId, {
          limit,
          ...(before === undefined ? {} : { before }),
        });
        send(
          res,
          "listWebhookDeliveries",
          200,
          envelope(res, { kind: "webhook_delivery_list", deliveries: page.deliveries, next_before: page.nextBefore }),
        );
      },
    },
    {
      operationId: "redeliverWebhook",
      guards: sessionGuards,
      handler: async (req, res) => {
        const deliveryId = String(req.params.deliveryId);
        const delivery = await webhookLog.redeliver(authOf(res).accountId, deliveryId);
        if (!delivery) throw new ApiError("not_found", `No webhook delivery ${deliveryId} on this account.`);
        send(res, "redeliverWebhook", 200, envelope(res, delivery));
      },
    },
  ];
}
