import { contractProperty } from "../contract-schemas.ts";
import { pagingInputProperties, pagingOutputProperties } from "../text-page.ts";
import { errorResult } from "./errors.ts";
import { inputSchemaOf, outputSchemaOf, readOnlyOpenWorld, type Tool, usage } from "./tool.ts";
import { transcriptFields, transcriptResult, wordOutputProperties } from "./transcript-text.ts";

export const getJob: Tool = {
  name: "get_job",
  operationId: "getTranscriptJob",
  title: "Get a speech recognition job",
  description: [
    "Read a speech recognition job that get_transcript started. While it runs, the result says `processing` (with `progress` when known): call again in a few seconds.",
    "When it has completed, the result holds the transcript text, paged by `max_chars` and `offset` as get_transcript pages it, and with `words: true` each word's time. A failed job answers its error.",
    "Free: it counts on the polling allowance, not the request allowance.",
  ].join(" "),
  annotations: { title: "Get a speech recognition job", ...readOnlyOpenWorld, idempotentHint: true },
  inputSchema: inputSchemaOf(
    {
      job_id: contractProperty("JobCompleted", "job_id"),
      words: {
        ...contractProperty("TranscriptRequest", "words"),
        description:
          "Time each word of the finished transcript (`words` and `word_timing` in the result). Default false.",
      },
      ...pagingInputProperties,
    },
    ["job_id"],
  ),
  outputSchema: outputSchemaOf(
    {
      // A failed job answers as an error result, so only these two states are results.
      status: {
        type: "string",
        enum: ["processing", "completed"],
        description: "`processing`: call get_job again later. `completed`: the transcript is in `text`.",
      },
      job_id: contractProperty("JobCompleted", "job_id"),
      progress: contractProperty("JobProcessing", "progress"),
      ...transcriptFields,
      ...pagingOutputProperties,
      ...wordOutputProperties,
      usage,
    },
    ["status", "job_id"],
  ),
  async run(client, args) {
    const state = await client.transcripts.job(args.job_id as string, { words: args.words === true });
    if (state.status === "failed") {
      const { code, number, message, docs } = state.error;
      const retryWith = (state.error as { retry_with?: unknown }).retry_with;
      return errorResult({
        code,
        number,
        message,
        docs,
        ...(retryWith === undefined ? {} : { retry_with: retryWith }),
      });
    }
    if (state.status === "processing") {
      const progress = state.progress === undefined ? {} : { progress: state.progress };
      const done = state.progress === undefined ? "" : ` (${Math.round(state.progress * 100)}% done)`;
      return {
        content: [
          {
            type: "text",
            text: `Job ${state.job_id} is still processing${done}. Call get_job again in a few seconds.`,
          },
        ],
        structuredContent: { status: "processing", job_id: state.job_id, ...progress },
      };
    }
    return transcriptResult({ status: "completed", job_id: state.job_id }, state.data, state.usage, args);
  },
};
