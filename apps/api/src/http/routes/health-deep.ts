import { performance } from "node:perf_hooks";
import type { AppDeps } from "../../deps.ts";
import { usageBlock } from "../../services/credits.ts";
import { ping } from "../../store/database.ts";
import { authOf } from "../auth.ts";
import { requestIdOf } from "../locals.ts";
import { type LiveRoute, send } from "../route.ts";

type DependencyName = "database" | "queue" | "speech_engine";

/** A dependency the deep health check asks; it throws when the dependency fails. */
export interface DependencyProbe {
  name: DependencyName;
  check(): Promise<void>;
}

/** `GET /health/deep`: asks each dependency of the service, never an upstream platform. Free. */
export function deepHealthCheck(deps: AppDeps, probes: DependencyProbe[] = []): LiveRoute {
  const all: DependencyProbe[] = [{ name: "database", check: () => ping(deps.platform.store) }, ...probes];
  return {
    operationId: "deepHealthCheck",
    handler: async (_req, res) => {
      const auth = authOf(res);
      const checks = await Promise.all(all.map(run));
      send(res, "deepHealthCheck", 200, {
        ok: true,
        request_id: requestIdOf(res),
        data: {
          kind: "health_deep",
          status: checks.every((check) => check.status === "ok") ? "ok" : "degraded",
          version: deps.config.version,
          checks,
        },
        usage: usageBlock(0, auth.credits),
      });
    },
  };
}

async function run(probe: DependencyProbe) {
  const started = performance.now();
  try {
    await probe.check();
    return { name: probe.name, status: "ok" as const, latency_ms: elapsed(started), detail: null };
  } catch (error) {
    return {
      name: probe.name,
      status: "failing" as const,
      latency_ms: elapsed(started),
      detail: error instanceof Error ? error.message : String(error),
    };
  }
}

function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 100) / 100;
}
