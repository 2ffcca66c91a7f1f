import { errorTable } from "@verbatim/contract";
import { ApiError, ConnectionError } from "@verbatim/sdk";
import { contractProperty } from "../contract-schemas.ts";
import type { ToolResult } from "./tool.ts";

/** The most argument problems an error result lists, as the contract caps an `invalid_request`'s `issues`. */
const maxIssuesListed = contractProperty("InvalidRequestError", "issues").maxItems as number;

interface ErrorFields {
  code: string;
  number?: number;
  message: string;
  docs?: string;
  retry_with?: unknown;
  retry_after?: number;
  issues?: ArgumentIssue[];
  truncated?: true;
}

/** One problem of a tool's arguments: where, as a JSON pointer from `/arguments`, and what. */
export interface ArgumentIssue {
  path: string;
  message: string;
}

/** An error as a tool result: the model reads it and can act on it, where a protocol error would end the call. */
export function errorResult(error: ErrorFields): ToolResult {
  const retryWith = error.retry_with === undefined ? "" : ` Retry with ${JSON.stringify(error.retry_with)}.`;
  const retryAfter = error.retry_after === undefined ? "" : ` Retry after ${error.retry_after} seconds.`;
  const number = error.number === undefined ? "" : ` (${error.number})`;
  return {
    isError: true,
    content: [{ type: "text", text: `Error ${error.code}${number}: ${error.message}${retryWith}${retryAfter}` }],
    structuredContent: { error },
  };
}

/** The error result of a failed call, or a rethrow for failures that are not the API's nor the network's. */
export function failedCallResult(failure: unknown): ToolResult {
  if (failure instanceof ApiError) {
    return errorResult({
      code: failure.code,
      number: failure.number,
      message: failure.message,
      docs: failure.docs,
      ...(failure.retryWith === null ? {} : { retry_with: failure.retryWith }),
      ...(failure.retryAfter === null ? {} : { retry_after: failure.retryAfter }),
    });
  }
  if (failure instanceof ConnectionError) {
    return errorResult({
      code: "connection_failed",
      message: `The Verbatim API could not be reached: ${failure.message}`,
    });
  }
  throw failure;
}

/**
 * Arguments that break a tool's input schema, answered as the API answers a body that breaks its
 * schema: at most `maxIssuesListed` issues, with `truncated` when there were more, so that many
 * bad arguments cannot make an answer many times the size of the call.
 */
export function invalidArgumentsResult(issues: readonly ArgumentIssue[]): ToolResult {
  const listed = issues.slice(0, maxIssuesListed);
  const problems = listed.map((issue) => `${issue.path} ${issue.message}`).join("; ");
  const more =
    issues.length > listed.length ? ` The first ${listed.length} of ${issues.length} problems are listed.` : "";
  return errorResult({
    code: "invalid_request",
    number: errorTable.invalid_request.number,
    message: `Invalid arguments: ${problems}.${more}`,
    issues: listed,
    ...(more === "" ? {} : { truncated: true }),
  });
}
