import { MAX_BATCH_SIZE } from "@modelcontextprotocol/sdk/server/requestBody.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { createMcpServer, operationOfTool, serverCard } from "@verbatim/mcp";
import { Verbatim } from "@verbatim/sdk";
import express, { type Request, type RequestHandler, type Response, Router } from "express";
import { ApiError } from "../errors.ts";
import type { Allowance, Authentication } from "../services/accounts/index.ts";
import { hashApiKey } from "../services/accounts/index.ts";
import type { AppDeps, HttpConfig } from "./app-deps.ts";
import { admit, requireApiKey } from "./auth.ts";
import { apiKeyOf, connectedAddress, publicBaseUrl } from "./locals.ts";
import { mcpTicketHeader } from "./mcp-ticket.ts";
import { allowanceOf } from "./routes/index.ts";

/** The most an MCP message may hold: tool arguments are short. */
const maxMessageBytes = 256 * 1024;

/** The JSON-RPC error code of a refusal by this server rather than by a tool (the range JSON-RPC leaves to servers). */
const refusedCode = -32000;

/**
 * The MCP tool server over Streamable HTTP at `POST /mcp`, and its server card. Stateless: each
 * POST gets its own server and transport. A foreign `Origin` is refused, then the key is checked
 * before the body is read; then each message of the body is counted (`admitMessages`) before any
 * runs. A tool call's API request, sent to the address the POST reached with the caller's key, is
 * limited and charged by the same code as any other request, but not counted again.
 */
export function mcpRoutes(deps: AppDeps): Router {
  const router = Router();
  router.get("/.well-known/mcp/server-card.json", (req, res) => {
    res.json(serverCard(publicBaseUrl(req, deps.config.publicUrl)));
  });
  router.use("/mcp", refuseForeignOrigins(deps.config));
  router.post("/mcp", requireApiKey(deps), readBody(), async (req, res) => {
    const apiKey = apiKeyOf(res);
    const messages = messagesOf(req.body, res.locals.unreadableBody !== undefined);
    let toolCalls: Array<{ allowance: Allowance; auth: Authentication }>;
    try {
      toolCalls = await admitMessages(deps, res, apiKey, messages);
    } catch (failure) {
      if (!(failure instanceof ApiError) || failure.code !== "rate_limited") throw failure;
      const docsBaseUrl = publicBaseUrl(req, deps.config.publicUrl);
      refuseAsJsonRpc(res, failure, docsBaseUrl, messages, Array.isArray(req.body));
      return;
    }
    if (res.locals.unreadableBody !== undefined) throw res.locals.unreadableBody;
    const admissions = deps.platform.toolCallAdmissions.hold(hashApiKey(apiKey), toolCalls);
    try {
      await serveMessages(req, res, apiKey, admissions.ticket);
    } finally {
      // Every tool call's request has been answered by now: what is left was never taken.
      admissions.release();
    }
  });
  // Stateless: no stream to open (GET) and no session to end (DELETE). 405 tells an MCP client
  // so; it takes any other status for a failure.
  router.all("/mcp", (_req, res) => {
    res
      .status(405)
      .set("Allow", "POST")
      .json({
        jsonrpc: "2.0",
        error: {
          code: refusedCode,
          message: "Method not allowed: this MCP server is stateless; POST messages to /mcp.",
        },
        id: null,
      });
  });
  return router;
}

/**
 * Runs the POST's messages on a new MCP server and transport. Its tool calls reach the API at the
 * address the POST reached, with the caller's key and the POST's `ticket`.
 */
async function serveMessages(req: Request, res: Response, apiKey: string, ticket: string): Promise<void> {
  const host = req.get("host");
  const client = new Verbatim({
    apiKey,
    // The app may not know the port it listens on, but this connection reached it.
    baseUrl: `http://${connectedAddress(req)}`,
    defaultHeaders: {
      // The answers' links (error docs) name the address the MCP client used, as a direct call's would.
      ...(host === undefined ? {} : { Host: host }),
      "X-Forwarded-Proto": req.protocol,
      [mcpTicketHeader]: ticket,
    },
    // A retry belongs to the MCP client, which sees the error result.
    maxRetries: 0,
  });
  const server = createMcpServer(client);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on("close", () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, req.body);
}

/**
 * Refuses a request whose `Origin` is neither this server's nor one the operator listed
 * (`VERBATIM_MCP_ALLOWED_ORIGINS`) with 403, as the MCP transport requires against DNS rebinding.
 * No `Origin` (a client that is not a browser) passes. This server's origin is `VERBATIM_PUBLIC_URL`'s
 * when it is set. Without it, only names DNS cannot rebind count as this server: the address the
 * connection reached and the loopback names on its port, never the request's `Host`, which a
 * rebound name satisfies by construction.
 */
function refuseForeignOrigins(config: HttpConfig): RequestHandler {
  const listed = new Set(config.mcpAllowedOrigins);
  return (req, res, next) => {
    const origin = req.get("origin");
    if (origin === undefined) return next();
    const canonical = URL.canParse(origin) ? new URL(origin).origin : origin;
    if (ownOrigins(req, config.publicUrl).includes(canonical) || listed.has(canonical)) return next();
    res.status(403).json({
      jsonrpc: "2.0",
      error: {
        code: refusedCode,
        message: `Forbidden: Origin ${origin} may not use this MCP server. Its operator can list it in VERBATIM_MCP_ALLOWED_ORIGINS.`,
      },
      id: null,
    });
  };
}

/** The origins this server answers at that DNS cannot rebind to it (see `refuseForeignOrigins`). */
function ownOrigins(req: Request, publicUrl: string | undefined): string[] {
  if (publicUrl) return [new URL(publicUrl).origin];
  const protocol = req.protocol === "https" ? "https" : "http";
  const port = req.socket.localPort;
  return [connectedAddress(req), `localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`].map(
    (host) => new URL(`${protocol}://${host}`).origin,
  );
}

/** Parses the JSON body; a body that cannot be read is kept in `res.locals.unreadableBody`, to be counted before it is refused. */
function readBody(): RequestHandler {
  const parseJson = express.json({ limit: maxMessageBytes });
  return (req, res, next) => {
    parseJson(req, res, (failure?: unknown) => {
      if (failure !== undefined) res.locals.unreadableBody = failure;
      next();
    });
  };
}

/**
 * The messages a POST counts as: each of a batch, or the one body. A body that is unreadable,
 * empty or beyond the transport's batch size is refused whole by the parser or the transport,
 * and counts once.
 */
function messagesOf(body: unknown, unreadable: boolean): unknown[] {
  if (unreadable || !Array.isArray(body)) return [body];
  if (body.length === 0 || body.length > MAX_BATCH_SIZE) return [undefined];
  return body;
}

/**
 * Counts each message against its allowance, in order: a tool call against the allowance of the
 * API operation it calls (the request allowance for a tool this server does not have), any other
 * message (`initialize`, `tools/list`, `ping`, notifications) against the polling allowance. The
 * first refusal throws 429 `rate_limited`, before any message runs; those counted before it stay
 * counted. Answers the admissions of calls to known tools, which their API requests take.
 */
async function admitMessages(
  deps: AppDeps,
  res: Response,
  apiKey: string,
  messages: readonly unknown[],
): Promise<Array<{ allowance: Allowance; auth: Authentication }>> {
  const toolCalls: Array<{ allowance: Allowance; auth: Authentication }> = [];
  for (const message of messages) {
    const toolCall = isToolCall(message);
    const operation = toolCall ? operationOfTool(message.params?.name) : undefined;
    const allowance = operation !== undefined ? allowanceOf(operation) : toolCall ? "request" : "poll";
    const auth = await admit(deps, res, apiKey, allowance);
    if (operation !== undefined) toolCalls.push({ allowance, auth });
  }
  return toolCalls;
}

function isToolCall(message: unknown): message is { params?: { name?: unknown } } {
  return typeof message === "object" && message !== null && (message as { method?: unknown }).method === "tools/call";
}

/**
 * 429 with `Retry-After` (and the `X-RateLimit-*` headers `admit` set), its body JSON-RPC as the
 * transport's answers are: an error for each request of the messages counted, carrying the API's
 * error block, in an array for a batch; one error without an id when no request was counted.
 */
function refuseAsJsonRpc(
  res: Response,
  refusal: ApiError,
  docsBaseUrl: string,
  messages: readonly unknown[],
  batch: boolean,
): void {
  const error = {
    code: refusedCode,
    message: refusal.message,
    data: { ...refusal.toBody(docsBaseUrl), retry_after: refusal.retryAfterSeconds },
  };
  const answers = messages.flatMap((message) => {
    const id = jsonRpcIdOf(message);
    return id === undefined ? [] : [{ jsonrpc: "2.0", id, error }];
  });
  if (refusal.retryAfterSeconds !== undefined) res.set("Retry-After", String(refusal.retryAfterSeconds));
  res
    .status(refusal.status)
    .json(batch && answers.length > 0 ? answers : (answers[0] ?? { jsonrpc: "2.0", id: null, error }));
}

/** The id of a JSON-RPC request; `undefined` for a notification, a response or no message at all. */
function jsonRpcIdOf(message: unknown): string | number | undefined {
  if (typeof message !== "object" || message === null || !("method" in message)) return undefined;
  const { id } = message as { id?: unknown };
  return typeof id === "string" || typeof id === "number" ? id : undefined;
}
