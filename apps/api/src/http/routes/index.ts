import type { OperationId } from "@verbatim/contract";
import type { AppDeps } from "../../deps.ts";
import type { LiveRoute } from "../route.ts";
import { healthCheck } from "./health.ts";

/** The operations this server serves. */
export function liveRoutes(deps: AppDeps): LiveRoute[] {
  return [healthCheck(deps)];
}

/**
 * Operations of the contract that are not live yet, with the work that brings them. They
 * validate their input like any other operation, then answer 404 `not_found` saying so.
 */
export const pendingOperations: Partial<Record<OperationId, string>> = {
  fetchVideoTranscript: "YouTube and audio transcripts",
  getTranscriptJob: "speech recognition jobs",
  fetchTranscriptsBatch: "batches",
  fetchChannelVideos: "YouTube lists",
  fetchPlaylistVideos: "YouTube lists",
  searchVideos: "YouTube lists",
  me: "the account platform",
  getUsage: "the account platform",
  deepHealthCheck: "the account platform",
  createMonitor: "monitors",
  listMonitors: "monitors",
  getMonitor: "monitors",
  updateMonitor: "monitors",
  deleteMonitor: "monitors",
  checkMonitor: "monitors",
  listMonitorEvents: "monitors",
};
