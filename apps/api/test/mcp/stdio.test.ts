import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { toolDefinitions } from "@verbatim/mcp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serverStartTimeoutMs, startYoutubeServer, type YoutubeTestServer } from "../support/youtube-server.ts";
import { callTool, expectToolError, privateVideo, registerVideos, surfaceGo, surfaceGoText } from "./mcp-client.ts";

const bin = join(dirname(createRequire(import.meta.url).resolve("@verbatim/mcp/package.json")), "bin/verbatim-mcp.mjs");

let yt: YoutubeTestServer;

beforeAll(async () => {
  yt = await startYoutubeServer({ credits: 100 });
  registerVideos(yt);
}, serverStartTimeoutMs);

afterAll(() => yt?.close());

/** The `verbatim-mcp` bin as an MCP client spawns it, with the key and server in its environment. */
async function spawnServer(apiKey: string): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin],
    env: { PATH: process.env.PATH ?? "", VERBATIM_API_KEY: apiKey, VERBATIM_BASE_URL: yt.server.baseUrl },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const client = new Client({ name: "verbatim-test", version: "0.0.0" });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

describe("verbatim-mcp over stdio", () => {
  let client: Client;
  let stderr: () => string;
  let tools: Tool[];

  beforeAll(async () => {
    ({ client, stderr } = await spawnServer(yt.server.key.key));
    tools = (await client.listTools()).tools;
  }, serverStartTimeoutMs);
  afterAll(() => client?.close());

  it("lists the package's tool definitions and logs only to stderr", () => {
    expect(tools).toEqual(JSON.parse(JSON.stringify(toolDefinitions)));
    expect(stderr()).toContain(`serving on stdio, API at ${yt.server.baseUrl}/api/v2`);
  });

  it("answers get_transcript from the API with the key of its environment, charging its account", async () => {
    const before = await yt.balance();
    const result = await callTool(client, tools, "get_transcript", { video: surfaceGo });
    expect(result.structuredContent).toMatchObject({ status: "completed", text: surfaceGoText });
    expect(await yt.balance()).toBe((before ?? 0) - 1);
  });

  it("answers a private video as an error result with code private and number 4001", async () => {
    const error = expectToolError(await callTool(client, tools, "get_transcript", { video: privateVideo }), "private");
    expect(error.number).toBe(4001);
  });

  it("answers get_credits with the account's balance", async () => {
    const result = await callTool(client, tools, "get_credits");
    expect(result.structuredContent.credits).toBe(await yt.balance());
  });
});

describe("verbatim-mcp over stdio with a key the API refuses", () => {
  it("starts, and answers every call with an unauthorized error result", async () => {
    const { client } = await spawnServer(`vb_live_${"z".repeat(40)}`);
    try {
      const tools = (await client.listTools()).tools;
      const error = expectToolError(await callTool(client, tools, "get_credits"), "unauthorized");
      expect(error.number).toBe(1101);
    } finally {
      await client.close();
    }
  });
});
