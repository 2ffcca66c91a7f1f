import type { ResponseBody } from "@verbatim/contract";
import { ApiError } from "../../errors.ts";
import type { TranscriptJobs } from "../../services/speech/index.ts";
import { jobOutcomeOf, type TranscriptJobRow } from "../../services/speech/index.ts";
import type { AppDeps } from "../app-deps.ts";
import { authOf, publicBaseUrl, requestIdOf } from "../locals.ts";
import { type LiveRoute, send } from "../route.ts";

/** `GET /transcripts/jobs/{jobId}`: a job's state; free, on the polling allowance, no extraction slot. */
export function getTranscriptJob(deps: AppDeps, jobs: TranscriptJobs): LiveRoute {
  return {
    operationId: "getTranscriptJob",
    handler: async (req, res) => {
      const jobId = String(req.params.jobId);
      const job = await jobs.findOwned(jobId, authOf(res).accountId);
      if (!job) throw new ApiError("not_found", `No job ${jobId} on this account.`);
      const { words } = req.query as { words?: boolean };
      send(
        res,
        "getTranscriptJob",
        200,
        jobStatusBody(job, requestIdOf(res), publicBaseUrl(req, deps.config.publicUrl), words === true),
      );
    },
  };
}

/**
 * The poll's answer for a job (`GET /transcripts/jobs/{jobId}`), its words timed with `words`; a
 * failed job is `ok: false` with HTTP 200.
 */
export function jobStatusBody(
  job: TranscriptJobRow,
  requestId: string,
  docsBaseUrl: string,
  words: boolean,
): ResponseBody<"getTranscriptJob", 200> {
  const common = { request_id: requestId, job_id: job.id, data: null };
  const outcome = jobOutcomeOf(job, docsBaseUrl, words);
  if (outcome === null) return { ...common, ok: true, status: "processing", progress: job.progress };
  if (outcome.status === "completed") {
    return { ...common, ok: true, status: "completed", data: outcome.transcript, usage: outcome.usage };
  }
  return { ...common, ok: false, status: "failed", error: outcome.error };
}
