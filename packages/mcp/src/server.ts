import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { OperationId } from "@verbatim/contract";
import type { Verbatim } from "@verbatim/sdk";
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";
import packageJson from "../package.json" with { type: "json" };
import {
  type ArgumentIssue,
  failedCallResult,
  invalidArgumentsResult,
  type Tool,
  toolDefinitions,
  tools,
} from "./tools/index.ts";

/** The MCP server's name and version, as `initialize` and the server card report them. */
export const serverInfo = { name: "verbatim", title: "Verbatim", version: packageJson.version } as const;

/** What the server tells a model about its tools when it connects. */
export const serverInstructions = [
  "Transcripts of YouTube, TikTok, Instagram, X, Vimeo, Facebook, Dailymotion, Twitch and Loom videos, podcast episodes and media files, and YouTube discovery.",
  "Use get_transcript for one source's text (translate_to for the platform's translation), list_languages for the caption tracks and translations a source has, search_videos to find videos by keywords, list_channel_videos and list_playlist_videos to walk a channel or playlist page by page (every row's url goes straight to get_transcript), get_job to collect a transcript that speech recognition produces as a job, start_live_session, read_live_session and stop_live_session to transcribe a live stream as it plays, and get_credits for the balance.",
  "Calls are billed as the REST API bills them: a caption transcript or a non-empty list page costs 1 credit, speech recognition 1 credit per started minute of audio on delivery (a live session as the minutes pass), failures nothing; list_languages is free, and get_credits and get_job are free polls.",
].join(" ");

// One compiled validator per tool for the whole process: the schemas never change.
const ajv = new Ajv({ allErrors: true, useDefaults: true });
addFormats.default(ajv);
const validators = new Map<string, ValidateFunction>(tools.map((tool) => [tool.name, ajv.compile(tool.inputSchema)]));

/**
 * An MCP server whose tools call the Verbatim API through `client`, so every call is billed,
 * limited and refused exactly as the API does. The low-level `Server` takes the tools' JSON
 * Schemas as they are, derived from the OpenAPI document, where `McpServer` would want zod.
 */
export function createMcpServer(client: Verbatim): Server {
  const server = new Server(serverInfo, { capabilities: { tools: {} }, instructions: serverInstructions });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [...toolDefinitions] }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = tools.find((candidate) => candidate.name === request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool ${request.params.name}`);
    return callTool(tool, client, { ...request.params.arguments });
  });
  return server;
}

/** The API operation a tool calls, by the tool's name; `undefined` for a name that is no tool. */
export function operationOfTool(name: unknown): OperationId | undefined {
  return tools.find((tool) => tool.name === name)?.operationId;
}

async function callTool(tool: Tool, client: Verbatim, args: Record<string, unknown>) {
  const validate = validators.get(tool.name);
  if (validate && !validate(args)) {
    return invalidArgumentsResult(argumentIssues(validate.errors ?? []));
  }
  try {
    return await tool.run(client, args);
  } catch (failure) {
    return failedCallResult(failure);
  }
}

/** One issue per distinct path and message, each path a JSON pointer into the call's `arguments`. */
function argumentIssues(errors: readonly ErrorObject[]): ArgumentIssue[] {
  const issues = new Map<string, ArgumentIssue>();
  for (const error of errors) {
    const named = error.params.additionalProperty ?? error.params.missingProperty;
    const path = `/arguments${error.instancePath}${typeof named === "string" ? `/${pointerToken(named)}` : ""}`;
    const issue = { path, message: error.message ?? "is invalid" };
    issues.set(`${issue.path}\n${issue.message}`, issue);
  }
  return [...issues.values()];
}

/** A property name as one JSON pointer token (RFC 6901): `~` and `/` escaped. */
function pointerToken(name: string): string {
  return name.replaceAll("~", "~0").replaceAll("/", "~1");
}
