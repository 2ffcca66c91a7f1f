import type { Request, Response } from "express";
import { usageBlock } from "../../services/accounts/index.ts";
import type { MonitorCreate, Monitors, MonitorUpdate } from "../../services/monitors/index.ts";
import type { AppDeps } from "../app-deps.ts";
import { authOf, publicBaseUrl, requestIdOf } from "../locals.ts";
import { bodyOf, type LiveRoute, sendOk, wasSent } from "../route.ts";

/**
 * The seven `/monitors` operations over the monitor service. Reading and changing monitors is
 * free; creating one (its baseline) and checking one read the platform, so they hold an
 * extraction slot like any other request that does.
 */
export function monitorRoutes(deps: AppDeps, monitors: Monitors): LiveRoute[] {
  return [
    {
      operationId: "createMonitor",
      holdsExtractionSlot: true,
      handler: async (req, res) => {
        const auth = authOf(res);
        // Only a tab the client sent: a list without tabs refuses one sent, never a default.
        const { tab, ...body } = bodyOf<MonitorCreate>(req);
        const created = await monitors.create(auth.accountId, wasSent(res, "tab") ? { ...body, tab } : body);
        sendOk(res, "createMonitor", 201, {
          data: created,
          usage: usageBlock(0, auth.credits),
        });
      },
    },
    {
      operationId: "listMonitors",
      handler: async (req, res) => {
        const auth = authOf(res);
        sendOk(res, "listMonitors", 200, {
          data: await monitors.list(auth.accountId, sinceOf(req)),
          usage: usageBlock(0, auth.credits),
        });
      },
    },
    {
      operationId: "getMonitor",
      handler: async (req, res) => {
        const auth = authOf(res);
        sendOk(res, "getMonitor", 200, {
          data: await monitors.get(auth.accountId, monitorIdOf(req), sinceOf(req)),
          usage: usageBlock(0, auth.credits),
        });
      },
    },
    {
      operationId: "updateMonitor",
      handler: async (req, res) => {
        const auth = authOf(res);
        const updated = await monitors.update(auth.accountId, monitorIdOf(req), bodyOf<MonitorUpdate>(req));
        sendOk(res, "updateMonitor", 200, {
          data: updated,
          usage: usageBlock(0, auth.credits),
        });
      },
    },
    {
      operationId: "deleteMonitor",
      handler: async (req, res) => {
        const auth = authOf(res);
        const monitorId = monitorIdOf(req);
        await monitors.delete(auth.accountId, monitorId);
        sendOk(res, "deleteMonitor", 200, {
          data: { kind: "monitor_deleted", id: monitorId },
          usage: usageBlock(0, auth.credits),
        });
      },
    },
    {
      operationId: "checkMonitor",
      holdsExtractionSlot: true,
      handler: async (req, res) => {
        const auth = authOf(res);
        const result = await monitors.checkNow(auth.accountId, monitorIdOf(req), {
          requestId: requestIdOf(res),
          docsBaseUrl: publicBaseUrl(req, deps.config.publicUrl),
        });
        sendOk(res, "checkMonitor", 200, {
          data: {
            kind: "monitor_check",
            monitor: result.monitor,
            new_videos: result.newVideos,
            event: result.event,
            error: result.error,
          },
          usage: usageBlock(result.creditsSpent, result.balance),
        });
      },
    },
    {
      operationId: "listMonitorEvents",
      handler: async (req, res) => {
        const auth = authOf(res);
        const monitorId = monitorIdOf(req);
        const { limit, cursor } = req.query as { limit?: number; cursor?: string };
        const since = sinceOf(req);
        const page = await monitors.events(auth.accountId, monitorId, {
          limit: limit ?? 20,
          ...(cursor ? { cursor } : {}),
          ...(since === undefined ? {} : { since }),
        });
        sendEvents(res, monitorId, page, auth.credits);
      },
    },
  ];
}

function sendEvents(
  res: Response,
  monitorId: string,
  page: Awaited<ReturnType<Monitors["events"]>>,
  balance: number | null,
): void {
  sendOk(res, "listMonitorEvents", 200, {
    data: { kind: "monitor_event_list", monitor_id: monitorId, events: page.events, next_cursor: page.nextCursor },
    usage: usageBlock(0, balance),
  });
}

function monitorIdOf(req: Request): string {
  return String(req.params.monitorId);
}

function sinceOf(req: Request): string | undefined {
  const { since } = req.query as { since?: string };
  return since === undefined || since === "" ? undefined : since;
}
