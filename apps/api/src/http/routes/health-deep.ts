import { performance } from "node:perf_hooks";
import { type QueueDepth, readQueueDepths } from "../../metrics.ts";
import { usageBlock } from "../../services/accounts/index.ts";
import { heartbeatFreshSeconds, readWorkerHeartbeats, type WorkerHeartbeat } from "../../services/operations/index.ts";
import type { DependencyProbe } from "../../services/process-services.ts";
import { ping } from "../../store/database.ts";
import type { AppDeps } from "../app-deps.ts";
import { storeUnreachable } from "../auth.ts";
import { authOf } from "../locals.ts";
import { type LiveRoute, sendOk } from "../route.ts";

interface DependencyCheck {
  name: DependencyProbe["name"] | "workers";
  status: "ok" | "failing";
  latency_ms: number;
  detail: string | null;
}

/**
 * `GET /health/deep`: asks each dependency of the service, never an upstream platform, and
 * reports the queues' depth and the workers' heartbeats, read from the database so that an API
 * process reports workers running elsewhere. Free. A database that cannot be read answers 503
 * `overloaded`, as admission does.
 */
export function deepHealthCheck(deps: AppDeps, probes: readonly DependencyProbe[]): LiveRoute {
  const all: DependencyProbe[] = [{ name: "database", check: () => ping(deps.platform.store) }, ...probes];
  return {
    operationId: "deepHealthCheck",
    handler: async (_req, res) => {
      const auth = authOf(res);
      const checks: DependencyCheck[] = await Promise.all(all.map(run));
      let queues: QueueDepth[];
      let workers: WorkerHeartbeat[];
      const workersStarted = performance.now();
      try {
        [queues, workers] = await Promise.all([
          readQueueDepths(deps.platform.store),
          readWorkerHeartbeats(deps.platform.store, deps.now()),
        ]);
      } catch (cause) {
        throw storeUnreachable(cause);
      }
      checks.push(workersCheck(queues, workers, elapsed(workersStarted)));
      sendOk(res, "deepHealthCheck", 200, {
        data: {
          kind: "health_deep",
          status: checks.every((check) => check.status === "ok") ? "ok" : "degraded",
          version: deps.config.version,
          checks,
          queues: queues.map((queue) => ({
            name: queue.name,
            queued: queue.queued,
            active: queue.active,
            oldest_queued_seconds: Math.round(queue.oldestQueuedSeconds * 1000) / 1000,
          })),
          workers: workers.map((worker) => ({
            id: worker.id,
            started_at: worker.startedAt.toISOString(),
            last_heartbeat_at: worker.lastSeenAt.toISOString(),
            fresh: worker.fresh,
          })),
        },
        usage: usageBlock(0, auth.credits),
      });
    },
  };
}

/** Queued jobs with no worker that reported recently will not run: the deployment is degraded. */
function workersCheck(queues: QueueDepth[], workers: WorkerHeartbeat[], latencyMs: number): DependencyCheck {
  const queued = queues.reduce((sum, queue) => sum + queue.queued, 0);
  const failing = queued > 0 && !workers.some((worker) => worker.fresh);
  return {
    name: "workers",
    status: failing ? "failing" : "ok",
    latency_ms: latencyMs,
    detail: failing
      ? `${queued} job(s) queued and no worker process has reported within ${heartbeatFreshSeconds} s.`
      : null,
  };
}

async function run(probe: DependencyProbe): Promise<DependencyCheck> {
  const started = performance.now();
  try {
    await probe.check();
    return { name: probe.name, status: "ok", latency_ms: elapsed(started), detail: null };
  } catch (error) {
    return {
      name: probe.name,
      status: "failing",
      latency_ms: elapsed(started),
      detail: error instanceof Error ? error.message : String(error),
    };
  }
}

function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 100) / 100;
}
