import { contractProperties, contractProperty } from "../contract-schemas.ts";
import { defaultMaxChars, pagingInputProperties, pagingOutputProperties } from "../text-page.ts";
import {
  chargedLikeTheEndpoint,
  inputSchemaOf,
  outputSchemaOf,
  readOnlyOpenWorld,
  type Tool,
  type ToolResult,
  usage,
} from "./tool.ts";
import { transcriptFields, transcriptResult, wordOutputProperties } from "./transcript-text.ts";

export const getTranscript: Tool = {
  name: "get_transcript",
  operationId: "fetchVideoTranscript",
  title: "Get a transcript",
  description: [
    "Fetch the transcript of a YouTube, TikTok, Instagram, X, Vimeo, Facebook, Dailymotion, Twitch or Loom video, a podcast episode (an Apple Podcasts or Spotify episode link, an episode page, a feed or an enclosure), or a media file URL.",
    `The result is plain text without timestamps (\`timestamps: true\` gives one \`[mm:ss] \` line per segment), at most \`max_chars\` characters (default ${defaultMaxChars}).`,
    "A longer transcript comes back `truncated` with `next_offset` and `total_chars`: call get_transcript again with the same arguments and `offset: next_offset` to read on.",
    "When speech recognition runs as a job, the result has `status: processing` and a `job_id`: call get_job with it until the transcript is there.",
    "`translate_to` asks the platform's own translation of the captions (list_languages says which languages each track offers); `language` is then the translation's and `source_language` the original's.",
    "`words: true` adds `words`, the start and duration of each word of the page's text, and `word_timing`: `source` where the source timed them, `estimated` where they were spread over each segment; same price.",
    `${chargedLikeTheEndpoint} Repeating a call for the next page reads the stored transcript but is charged again like the endpoint.`,
  ].join(" "),
  annotations: { title: "Get a transcript", ...readOnlyOpenWorld, idempotentHint: true },
  inputSchema: inputSchemaOf(
    {
      ...contractProperties("TranscriptRequest", ["video", "mode", "language", "translate_to", "words"]),
      // The API's `timestamps` chooses segments or joined text; here it chooses the text's form.
      timestamps: {
        type: "boolean",
        default: false,
        description: "Prefix each segment's line with its start time as `[mm:ss] `. Default false: one plain text.",
      },
      ...pagingInputProperties,
    },
    ["video"],
  ),
  outputSchema: outputSchemaOf(
    {
      // The API tells a finished transcript (200) from a job (202) by status code; a tool result has none.
      status: {
        type: "string",
        enum: ["completed", "processing"],
        description:
          "`completed`: the transcript is in `text`. `processing`: speech recognition continues as job `job_id`.",
      },
      job_id: contractProperty("JobAccepted", "job_id"),
      ...transcriptFields,
      ...pagingOutputProperties,
      ...wordOutputProperties,
      usage,
    },
    ["status", "usage"],
  ),
  async run(client, args) {
    const { video, mode, language, translate_to, words } = args as {
      video: string;
      mode?: "auto" | "captions" | "audio";
      language?: string;
      translate_to?: string;
      words?: boolean;
    };
    const answer = await client.transcripts.video({
      video,
      ...(mode === undefined ? {} : { mode }),
      ...(language === undefined ? {} : { language }),
      ...(translate_to === undefined ? {} : { translate_to }),
      ...(words === true ? { words: true } : {}),
    });
    if ("job_id" in answer) return jobStarted(answer.job_id, answer.usage);
    return transcriptResult({ status: "completed" }, answer.data, answer.usage, args);
  },
};

function jobStarted(jobId: string, usage: unknown): ToolResult {
  return {
    content: [
      {
        type: "text",
        text: `Speech recognition continues as job ${jobId}. Call get_job with job_id "${jobId}" in a few seconds to get the transcript.`,
      },
    ],
    structuredContent: { status: "processing", job_id: jobId, usage },
  };
}
