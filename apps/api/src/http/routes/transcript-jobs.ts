import type { AppDeps } from "../../deps.ts";
import { ApiError } from "../../errors.ts";
import { jobStatusBody, type TranscriptJobs } from "../../services/transcript-jobs.ts";
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
      send(
        res,
        "getTranscriptJob",
        200,
        jobStatusBody(job, requestIdOf(res), publicBaseUrl(req, deps.config.publicUrl)),
      );
    },
  };
}
