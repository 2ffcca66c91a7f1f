import type { OperationId } from "@verbatim/contract";
import type { AppDeps } from "../../deps.ts";
import type { Allowance } from "../../services/authenticator.ts";
import { CaptionLanguageLists } from "../../services/caption-languages.ts";
import { createMonitors } from "../../services/monitors.ts";
import { createTranscripts } from "../../services/transcripts.ts";
import type { LiveRoute } from "../route.ts";
import { healthCheck } from "./health.ts";
import { type DependencyProbe, deepHealthCheck } from "./health-deep.ts";
import { libraryRoutes } from "./library.ts";
import { me } from "./me.ts";
import { monitorRoutes } from "./monitors.ts";
import { getTranscriptJob } from "./transcript-jobs.ts";
import { fetchTranscriptsBatch } from "./transcripts-batch.ts";
import { listTranscriptLanguages } from "./transcripts-languages.ts";
import { listRoutes } from "./transcripts-lists.ts";
import { fetchVideoTranscript } from "./transcripts-video.ts";
import { getUsage } from "./usage.ts";

/** The operations this server serves. */
export function liveRoutes(deps: AppDeps): LiveRoute[] {
  const transcriptService = createTranscripts(deps);
  const captionLanguages = new CaptionLanguageLists({
    ...(deps.youtube ? { youtube: deps.youtube.captions } : {}),
    ...(deps.audio ? { sources: deps.audio.sources } : {}),
    ...(deps.audio?.platforms ? { platforms: deps.audio.platforms.registry } : {}),
  });
  const transcripts =
    deps.youtube || deps.audio
      ? [
          fetchVideoTranscript(deps, transcriptService),
          fetchTranscriptsBatch(deps, transcriptService),
          listTranscriptLanguages(deps, captionLanguages),
        ]
      : [];
  const jobs = deps.audio ? [getTranscriptJob(deps, deps.audio)] : [];
  const lists = deps.youtube?.lists ? listRoutes(deps, deps.youtube.lists) : [];
  const monitors =
    deps.youtube?.lists && deps.monitors
      ? monitorRoutes(
          deps,
          createMonitors(deps, {
            lists: deps.youtube.lists,
            transcripts: transcriptService,
            monitors: deps.monitors,
            docsBaseUrl: deps.config.publicUrl ?? "http://localhost",
          }),
        )
      : [];
  const { audio } = deps;
  const platforms = audio?.platforms;
  const probes: DependencyProbe[] = audio
    ? [
        { name: "queue", check: () => audio.queue.check() },
        { name: "speech_engine", check: () => audio.engine.check() },
        ...(platforms ? [{ name: "video_platforms" as const, check: () => platforms.check() }] : []),
      ]
    : [];
  return [
    healthCheck(deps),
    deepHealthCheck(deps, probes),
    me(deps),
    getUsage(deps),
    ...transcripts,
    ...jobs,
    ...lists,
    ...monitors,
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
  fetchChannelVideos: "YouTube lists configured on the server",
  fetchPlaylistVideos: "YouTube lists configured on the server",
  searchVideos: "YouTube lists configured on the server",
  createMonitor: "YouTube lists and monitors configured on the server",
  listMonitors: "YouTube lists and monitors configured on the server",
  getMonitor: "YouTube lists and monitors configured on the server",
  updateMonitor: "YouTube lists and monitors configured on the server",
  deleteMonitor: "YouTube lists and monitors configured on the server",
  checkMonitor: "YouTube lists and monitors configured on the server",
  listMonitorEvents: "YouTube lists and monitors configured on the server",
};
