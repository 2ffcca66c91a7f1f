import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { createMcpServer, serverCard } from "@verbatim/mcp";
import { Verbatim } from "@verbatim/sdk";
import express, { Router } from "express";
import type { AppDeps } from "../deps.ts";
import { requireApiKey } from "./auth.ts";
import { connectedAddress, publicBaseUrl } from "./locals.ts";

/** The most an MCP message may hold: tool arguments are short. */
const maxMessageBytes = 256 * 1024;

/**
 * The MCP tool server over Streamable HTTP at `POST /mcp`, and its server card. Stateless: each
 * POST gets its own server and transport. The key is checked here, uncounted; each tool call then
 * is a request to this same server with the caller's key, sent to the address the POST reached, so
 * it is counted, limited and charged by the same code as any other request.
 */
export function mcpRoutes(deps: AppDeps): Router {
  const router = Router();
  router.get("/.well-known/mcp/server-card.json", (req, res) => {
    res.json(serverCard(publicBaseUrl(req, deps.config.publicUrl)));
  });
  router.post("/mcp", requireApiKey(deps), express.json({ limit: maxMessageBytes }), async (req, res) => {
    const host = req.get("host");
    const client = new Verbatim({
      apiKey: res.locals.apiKey as string,
      // The app may not know the port it listens on, but this connection reached it.
      baseUrl: `http://${connectedAddress(req)}`,
      // The answers' links (error docs) name the address the MCP client used, as a direct call's would.
      defaultHeaders: { ...(host === undefined ? {} : { Host: host }), "X-Forwarded-Proto": req.protocol },
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
  });
  // Stateless: no stream to open (GET) and no session to end (DELETE). 405 tells an MCP client
  // so; it takes any other status for a failure.
  router.all("/mcp", (_req, res) => {
    res
      .status(405)
      .set("Allow", "POST")
      .json({
        jsonrpc: "2.0",
        error: { code: -32000, message: "Method not allowed: this MCP server is stateless; POST messages to /mcp." },
        id: null,
      });
  });
  return router;
}
