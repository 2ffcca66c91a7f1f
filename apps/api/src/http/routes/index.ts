import type { OperationId } from "@verbatim/contract";
import type { AppDeps } from "../../deps.ts";
import type { Allowance } from "../../services/authenticator.ts";
import type { LiveRoute } from "../route.ts";
import { healthCheck } from "./health.ts";
import { deepHealthCheck } from "./health-deep.ts";
import { me } from "./me.ts";
import { fetchVideoTranscript } from "./transcripts-video.ts";
import { getUsage } from "./usage.ts";

/** The operations this server serves. */
export function liveRoutes(deps: AppDeps): LiveRoute[] {
  const youtube = deps.youtube ? [fetchVideoTranscript(deps, deps.youtube)] : [];
  return [healthCheck(deps), deepHealthCheck(deps), me(deps), getUsage(deps), ...youtube];
}

/** Operations anyone may call: no key, no allowance. */
export const publicOperations: ReadonlySet<OperationId> = new Set(["healthCheck"]);

/** Operations that count against the polling allowance (spec 8.3) instead of the request allowance. */
export const pollingOperations: ReadonlySet<OperationId> = new Set([
  "getTranscriptJob",
  "me",
  "getUsage",
  "deepHealthCheck",
]);

/** Which allowance an authenticated operation counts against. */
export function allowanceOf(operationId: OperationId): Allowance {
  return pollingOperations.has(operationId) ? "poll" : "request";
}

/**
 * Operations of the contract that are not live yet, with the work that brings them. They
 * authenticate and validate their input like any other operation, then answer 404
 * `not_found` saying so.
 */
export const pendingOperations: Partial<Record<OperationId, string>> = {
  fetchVideoTranscript: "YouTube access configured on the server, and audio transcripts",
  getTranscriptJob: "speech recognition jobs",
  fetchTranscriptsBatch: "batches",
  fetchChannelVideos: "YouTube lists",
  fetchPlaylistVideos: "YouTube lists",
  searchVideos: "YouTube lists",
  createMonitor: "monitors",
  listMonitors: "monitors",
  getMonitor: "monitors",
  updateMonitor: "monitors",
  deleteMonitor: "monitors",
  checkMonitor: "monitors",
  listMonitorEvents: "monitors",
};
