import type { Accounts } from "../../services/accounts/index.ts";
import { authOf } from "../locals.ts";
import { type DashboardRoute, envelope, requireSession, send } from "./dashboard-answers.ts";

/** The signed-in account: its plan, balance and request allowance. */
export function accountRoutes(accounts: Accounts): DashboardRoute[] {
  return [
    {
      operationId: "getAccount",
      guards: [requireSession],
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
  ];
}
