import type { AppDeps } from "../../deps.ts";
import { usageBlock } from "../../services/credits.ts";
import { authOf, storeUnreachable } from "../auth.ts";
import { envelopeRequestId, type LiveRoute, send } from "../route.ts";

/** `GET /me`: validates the key; the balance, the plan and the key's request allowance. Free. */
export function me(deps: AppDeps): LiveRoute {
  return {
    operationId: "me",
    handler: async (_req, res) => {
      const auth = authOf(res);
      const allowance = await deps.platform.authenticator
        .peekRequestAllowance(auth.accountId, auth.keyId, deps.now())
        .catch((cause: unknown) => {
          throw storeUnreachable(cause);
        });
      send(res, "me", 200, {
        ok: true,
        request_id: envelopeRequestId(res),
        data: {
          kind: "me",
          user_id: auth.accountId,
          credits: auth.credits,
          plan: auth.plan,
          rate_limit: {
            limit: allowance.limit,
            remaining: allowance.remaining,
            reset: Math.ceil(allowance.resetAt.getTime() / 1000),
          },
        },
        usage: usageBlock(0, auth.credits),
      });
    },
  };
}
