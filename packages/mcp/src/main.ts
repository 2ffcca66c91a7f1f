import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { Verbatim } from "@verbatim/sdk";
import { createMcpServer } from "./server.ts";

// stdout carries the protocol: anything this process has to say goes to stderr.
if (!process.env.VERBATIM_API_KEY) {
  console.error("verbatim-mcp: VERBATIM_API_KEY is not set; every tool call will answer unauthorized.");
}
const client = new Verbatim({ apiKey: process.env.VERBATIM_API_KEY, baseUrl: process.env.VERBATIM_BASE_URL });
const server = createMcpServer(client);
await server.connect(new StdioServerTransport());
console.error(`verbatim-mcp: serving on stdio, API at ${client.baseUrl}`);
