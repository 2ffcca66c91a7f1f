import { usageBlock } from "../../services/accounts/index.ts";
import type { AppDeps } from "../app-deps.ts";
import { authOf } from "../locals.ts";
import { type LiveRoute, sendOk } from "../route.ts";

/**
 * `GET /me`: validates the key; the balance, the plan and the key's request allowance. Free.
 * Authentication already read all of it, so it costs one database round trip.
 */
export function me(_deps: AppDeps): LiveRoute {
  return {
    operationId: "me",
    handler: (_req, res) => {
      const auth = authOf(res);
      const allowance = auth.requestAllowance;
      sendOk(res, "me", 200, {
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
