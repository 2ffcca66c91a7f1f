import type { DashboardRequestBody } from "@verbatim/contract";
import type { Accounts, ApiKeyView, DashboardSessions } from "../../services/accounts/index.ts";
import { authOf } from "../locals.ts";
import { bodyOf } from "../route.ts";
import { type DashboardRoute, envelope, linkSessionGuards, requireSession, send } from "./dashboard-answers.ts";

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

/** The account's API keys: listed in any session, changed only in a link session. */
export function keyRoutes(accounts: Accounts, dashboard: DashboardSessions): DashboardRoute[] {
  const linkSession = linkSessionGuards(dashboard);
  return [
    {
      operationId: "listKeys",
      guards: [requireSession],
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
      guards: linkSession,
      handler: async (req, res) => {
        const body = bodyOf<DashboardRequestBody<"createKey">>(req);
        const issued = await accounts.keys.create(authOf(res).accountId, body.requests_per_minute ?? null);
        send(res, "createKey", 200, envelope(res, { kind: "issued_api_key", key: issued.key, api_key: keyOf(issued) }));
      },
    },
    {
      operationId: "updateKey",
      guards: linkSession,
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
      guards: linkSession,
      handler: async (req, res) => {
        const key = await accounts.keys.revoke(String(req.params.keyId), authOf(res).accountId);
        send(res, "revokeKey", 200, envelope(res, keyOf(key)));
      },
    },
    {
      operationId: "rotateKey",
      guards: linkSession,
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
  ];
}
