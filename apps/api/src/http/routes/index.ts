import type { OperationId } from "@verbatim/contract";
import type { Allowance } from "../../services/accounts/index.ts";
import type { AppDeps } from "../app-deps.ts";
import type { LiveRoute } from "../route.ts";
import { healthCheck } from "./health.ts";
import { deepHealthCheck } from "./health-deep.ts";
import { libraryRoutes } from "./library.ts";
import { liveSessionRoutes } from "./live.ts";
import { me } from "./me.ts";
import { monitorRoutes } from "./monitors.ts";
import { getTranscriptJob } from "./transcript-jobs.ts";
import { fetchTranscriptsBatch } from "./transcripts-batch.ts";
import { listTranscriptLanguages } from "./transcripts-languages.ts";
import { listRoutes } from "./transcripts-lists.ts";
import { fetchVideoTranscript } from "./transcripts-video.ts";
import { getUsage } from "./usage.ts";
import { getVideoMetadata } from "./videos-metadata.ts";

/** The operations this server serves: each maps to the service behind it, when the server has that service. */
export function liveRoutes(deps: AppDeps): LiveRoute[] {
  const { transcripts, batches, captionLanguages, metadata, jobs, callbackTargets, lists, monitors, live, probes } =
    deps.services;
  return [
    healthCheck(deps),
    deepHealthCheck(deps, probes),
    me(deps),
    getUsage(deps),
    ...(transcripts ? [fetchVideoTranscript(deps, transcripts, callbackTargets)] : []),
    ...(batches ? [fetchTranscriptsBatch(deps, batches)] : []),
    ...(captionLanguages ? [listTranscriptLanguages(deps, captionLanguages)] : []),
    ...(metadata ? [getVideoMetadata(deps, metadata)] : []),
    ...(jobs ? [getTranscriptJob(deps, jobs)] : []),
    ...(lists ? listRoutes(deps, lists) : []),
    ...(monitors ? monitorRoutes(deps, monitors) : []),
    ...(live ? liveSessionRoutes(deps, live) : []),
    ...libraryRoutes(deps),
  ];
}

/** Operations anyone may call: no key, no allowance. */
export const publicOperations: ReadonlySet<OperationId> = new Set(["healthCheck"]);

/** Operations that count against the polling allowance (docs/decisions.md, rule 6) instead of the request allowance. */
export const pollingOperations: ReadonlySet<OperationId> = new Set([
  "getTranscriptJob",
  "me",
  "getUsage",
  "deepHealthCheck",
  "listMonitors",
  "getMonitor",
  "listMonitorEvents",
  "listLiveSessions",
  "getLiveSession",
  "streamLiveEvents",
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
  fetchVideoTranscript: "YouTube access or audio sources configured on the server",
  getTranscriptJob: "speech recognition configured on the server",
  fetchTranscriptsBatch: "YouTube access or audio sources configured on the server",
  listTranscriptLanguages: "YouTube access or audio sources configured on the server",
  getVideoMetadata: "YouTube access or audio sources configured on the server",
  fetchChannelVideos: "listing sources configured on the server",
  fetchPlaylistVideos: "listing sources configured on the server",
  searchVideos: "listing sources configured on the server",
  createMonitor: "listing sources and monitors configured on the server",
  listMonitors: "listing sources and monitors configured on the server",
  getMonitor: "listing sources and monitors configured on the server",
  updateMonitor: "listing sources and monitors configured on the server",
  deleteMonitor: "listing sources and monitors configured on the server",
  checkMonitor: "listing sources and monitors configured on the server",
  listMonitorEvents: "listing sources and monitors configured on the server",
  createLiveSession: "live sessions (speech recognition with a streaming engine) configured on the server",
  listLiveSessions: "live sessions (speech recognition with a streaming engine) configured on the server",
  getLiveSession: "live sessions (speech recognition with a streaming engine) configured on the server",
  streamLiveEvents: "live sessions (speech recognition with a streaming engine) configured on the server",
  stopLiveSession: "live sessions (speech recognition with a streaming engine) configured on the server",
};
