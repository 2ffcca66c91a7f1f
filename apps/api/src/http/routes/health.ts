import type { AppDeps } from "../app-deps.ts";
import { type LiveRoute, sendOk } from "../route.ts";

const service = "verbatim";

/** `GET /health`: liveness, without authentication. */
export function healthCheck(deps: AppDeps): LiveRoute {
  return {
    operationId: "healthCheck",
    handler: (_req, res) => {
      const status = { status: "ok" as const, service, version: deps.config.version, time: deps.now().toISOString() };
      sendOk(res, "healthCheck", 200, {
        ...status,
        data: { kind: "health", ...status },
        usage: { credits_spent: 0, balance: null, bytes: 0 },
      });
    },
  };
}
