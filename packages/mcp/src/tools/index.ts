import { getCredits } from "./account.ts";
import { getJob } from "./jobs.ts";
import { listChannelVideos, listPlaylistVideos, searchVideos } from "./lists.ts";
import { readLiveSession, startLiveSession, stopLiveSession } from "./live.ts";
import { getMetadata, listLanguages } from "./metadata.ts";
import type { Tool, ToolDefinition } from "./tool.ts";
import { getTranscript } from "./transcripts.ts";

export { type ArgumentIssue, failedCallResult, invalidArgumentsResult } from "./errors.ts";
export type { Tool, ToolAnnotations, ToolDefinition, ToolResult } from "./tool.ts";

/** Every tool, in the order `tools/list` answers them. */
export const tools: readonly Tool[] = [
  getTranscript,
  listLanguages,
  getMetadata,
  searchVideos,
  listChannelVideos,
  listPlaylistVideos,
  getCredits,
  getJob,
  startLiveSession,
  readLiveSession,
  stopLiveSession,
];

/** The tools as `tools/list` and the server card describe them, without their calls. */
export const toolDefinitions: readonly ToolDefinition[] = tools.map(
  ({ name, title, description, inputSchema, outputSchema, annotations }) => ({
    name,
    title,
    description,
    inputSchema,
    outputSchema,
    annotations,
  }),
);
