import { usageBlock } from "../../services/accounts/index.ts";
import type { AppDeps } from "../app-deps.ts";
import { storeUnreachable } from "../auth.ts";
import { authOf } from "../locals.ts";
import { type LiveRoute, sendOk } from "../route.ts";

/** `GET /usage`: credits charged per day and per operation. Free. */
export function getUsage(deps: AppDeps): LiveRoute {
  return {
    operationId: "getUsage",
    handler: async (req, res) => {
      const auth = authOf(res);
      const { from, to } = req.query as { from?: string; to?: string };
      const report = await deps.platform.usage
        .report(auth.accountId, auth.credits, from, to)
        .catch((cause: unknown) => {
          throw storeUnreachable(cause);
        });
      sendOk(res, "getUsage", 200, {
        data: report,
        usage: usageBlock(0, auth.credits),
      });
    },
  };
}
