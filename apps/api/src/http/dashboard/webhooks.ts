import { ApiError } from "../../errors.ts";
import type { Accounts, DashboardSessions } from "../../services/accounts/index.ts";
import type { WebhookLog } from "../../services/webhooks/index.ts";
import { authOf } from "../locals.ts";
import { type DashboardRoute, envelope, linkSessionGuards, requireSession, send } from "./dashboard-answers.ts";

/** The account's webhook secret (link sessions only) and its deliveries. */
export function webhookRoutes(
  accounts: Accounts,
  dashboard: DashboardSessions,
  webhookLog: WebhookLog,
): DashboardRoute[] {
  const linkSession = linkSessionGuards(dashboard);
  return [
    {
      operationId: "getWebhookSecret",
      guards: linkSession,
      handler: async (_req, res) => {
        const secret = await accounts.webhookSecret(authOf(res).accountId);
        send(res, "getWebhookSecret", 200, envelope(res, { kind: "webhook_secret", secret }));
      },
    },
    {
      operationId: "rotateWebhookSecret",
      guards: linkSession,
      handler: async (_req, res) => {
        const secret = await accounts.rotateWebhookSecret(authOf(res).accountId);
        send(res, "rotateWebhookSecret", 200, envelope(res, { kind: "webhook_secret", secret }));
      },
    },
    {
      operationId: "listWebhookDeliveries",
      guards: [requireSession],
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
      guards: [requireSession],
      handler: async (req, res) => {
        const deliveryId = String(req.params.deliveryId);
        const delivery = await webhookLog.redeliver(authOf(res).accountId, deliveryId);
        if (!delivery) throw new ApiError("not_found", `No webhook delivery ${deliveryId} on this account.`);
        send(res, "redeliverWebhook", 200, envelope(res, delivery));
      },
    },
  ];
}
