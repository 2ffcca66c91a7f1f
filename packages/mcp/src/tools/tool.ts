import type { OperationId } from "@verbatim/contract";
import type { Verbatim } from "@verbatim/sdk";
import { contractProperty, contractSchema, type JsonSchema } from "../contract-schemas.ts";

/** What MCP clients may assume about a tool (MCP `ToolAnnotations`). */
export interface ToolAnnotations {
  title: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint?: boolean;
  openWorldHint: boolean;
}

/** A tool as `tools/list` and the server card describe it. */
export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
  annotations: ToolAnnotations;
}

/** What a tool call answers: a readable text and the same result as structured content. */
export interface ToolResult {
  [field: string]: unknown;
  content: Array<{ type: "text"; text: string }>;
  structuredContent: Record<string, unknown>;
  isError?: boolean;
}

/** A tool and the call that runs it through the SDK. Arguments reach `run` already validated against `inputSchema`. */
export interface Tool extends ToolDefinition {
  /** The API operation `run` calls, once: a server meters the tool call as that operation. */
  operationId: OperationId;
  run(client: Verbatim, args: Record<string, unknown>): Promise<ToolResult>;
}

/** An error result's `error`: the API's error block, and when to retry. */
const errorSchema: JsonSchema = {
  type: "object",
  description: "Why the call failed, as the API answered it. Present only on results with `isError`.",
  required: ["code", "message"],
  properties: {
    code: { type: "string", description: contractProperty("UnknownError", "code").description },
    number: { type: "integer", description: contractProperty("UnknownError", "number").description },
    message: contractProperty("UnknownError", "message"),
    docs: contractProperty("UnknownError", "docs"),
    retry_with: {
      anyOf: [
        contractSchema("RetryWithMode"),
        contractSchema("RetryWithEndpoint"),
        contractSchema("RetryWithTranslation"),
      ],
      description:
        "What to change for the call to succeed: another `mode`, another endpoint, or a `translate_to` among those listed.",
    },
    // Retry-After is a header in the API; a tool result has no headers.
    retry_after: { type: "integer", minimum: 0, description: "Seconds to wait before calling again." },
    issues: contractProperty("InvalidRequestError", "issues"),
    truncated: contractProperty("InvalidRequestError", "truncated"),
  },
};

/** A tool's input schema: these properties and no others. */
export function inputSchemaOf(properties: Record<string, JsonSchema>, required: readonly string[]): JsonSchema {
  return {
    type: "object",
    properties,
    ...(required.length > 0 ? { required: [...required] } : {}),
    additionalProperties: false,
  };
}

/** A result's schema: the success fields, or `error` on an `isError` result. */
export function outputSchemaOf(properties: Record<string, JsonSchema>, required: readonly string[]): JsonSchema {
  return {
    type: "object",
    properties: { ...properties, error: errorSchema },
    anyOf: [{ required: [...required] }, { required: ["error"] }],
  };
}

export const usage = contractProperty("TranscriptEnvelope", "usage");

export const chargedLikeTheEndpoint =
  "Each call is a request on the account's allowance and is charged exactly as the REST endpoint charges it.";

export const readOnlyOpenWorld = { readOnlyHint: true, destructiveHint: false, openWorldHint: true } as const;
