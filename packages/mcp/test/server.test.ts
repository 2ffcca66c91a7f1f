import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { Verbatim } from "@verbatim/sdk";
import { describe, expect, it } from "vitest";
import { createMcpServer } from "../src/server.ts";

/** An MCP client of a server whose SDK client gets every answer from `answer`. */
async function connectWith(answer: (request: Request) => Response | Promise<Response>): Promise<Client> {
  const verbatim = new Verbatim({
    apiKey: "vb_live_test",
    baseUrl: "http://verbatim.test",
    maxRetries: 0,
    fetch: async (input, init) => answer(new Request(input, init)),
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createMcpServer(verbatim).connect(serverSide);
  const client = new Client({ name: "unit", version: "0.0.0" });
  await client.connect(clientSide);
  return client;
}

function errorEnvelope(status: number, error: Record<string, unknown>, headers: Record<string, string> = {}): Response {
  return Response.json(
    { ok: false, request_id: "req_01ARZ3NDEKTSV4RRFFQ69G5FAV", error },
    { status, headers: { "x-request-id": "req_01ARZ3NDEKTSV4RRFFQ69G5FAV", ...headers } },
  );
}

async function call(client: Client, name: string, args: Record<string, unknown>) {
  return (await client.callTool({ name, arguments: args })) as CallToolResult & {
    structuredContent: { error: Record<string, unknown> };
  };
}

describe("API errors as tool results", () => {
  it("carries retry_with of a no_captions error in structured content and text", async () => {
    const client = await connectWith(() =>
      errorEnvelope(422, {
        code: "no_captions",
        number: 4103,
        message: "The video has no caption track.",
        docs: "http://verbatim.test/docs/errors/no_captions",
        retry_with: { mode: "audio" },
      }),
    );
    const result = await call(client, "get_transcript", { video: "jNQXAC9IVRw", mode: "captions" });
    expect(result.isError).toBe(true);
    expect(result.structuredContent.error).toEqual({
      code: "no_captions",
      number: 4103,
      message: "The video has no caption track.",
      docs: "http://verbatim.test/docs/errors/no_captions",
      retry_with: { mode: "audio" },
    });
    expect(result.content).toEqual([
      {
        type: "text",
        text: 'Error no_captions (4103): The video has no caption track. Retry with {"mode":"audio"}.',
      },
    ]);
  });

  it("carries a 429's Retry-After as retry_after", async () => {
    const client = await connectWith(() =>
      errorEnvelope(
        429,
        {
          code: "rate_limited",
          number: 2101,
          message: "Slow down.",
          docs: "http://verbatim.test/docs/errors/rate_limited",
        },
        { "retry-after": "7" },
      ),
    );
    const result = await call(client, "search_videos", { query: "whisper" });
    expect(result.structuredContent.error).toMatchObject({ code: "rate_limited", number: 2101, retry_after: 7 });
    expect(result.content[0]).toMatchObject({ text: expect.stringContaining("Retry after 7 seconds.") });
  });

  it("answers an unreachable API as a connection_failed error result", async () => {
    const client = await connectWith(() => {
      throw new TypeError("fetch failed");
    });
    const result = await call(client, "get_credits", {});
    expect(result.isError).toBe(true);
    expect(result.structuredContent.error).toMatchObject({ code: "connection_failed" });
  });

  it("refuses arguments outside the input schema without calling the API", async () => {
    const requests: Request[] = [];
    const client = await connectWith((request) => {
      requests.push(request);
      return new Response(null, { status: 500 });
    });
    const result = await call(client, "list_playlist_videos", { playlist: "PL1", limit: 51 });
    expect(result.structuredContent.error).toMatchObject({ code: "invalid_request", number: 1001 });
    expect(requests).toEqual([]);
  });

  it("lists the first 50 bad arguments, each at its JSON pointer, with truncated when there were more", async () => {
    const client = await connectWith(() => new Response(null, { status: 500 }));
    const args: Record<string, unknown> = { "a/b~c": 1 };
    for (let index = 0; index < 60; index++) args[`k${index}`] = 1;
    const result = await call(client, "get_credits", args);
    expect(result.structuredContent.error).toMatchObject({ code: "invalid_request", truncated: true });
    const issues = result.structuredContent.error.issues as Array<{ path: string; message: string }>;
    expect(issues).toHaveLength(50);
    expect(issues.slice(0, 2)).toEqual([
      { path: "/arguments/a~1b~0c", message: "must NOT have additional properties" },
      { path: "/arguments/k0", message: "must NOT have additional properties" },
    ]);
    expect(result.content[0]).toMatchObject({
      text: expect.stringContaining("The first 50 of 61 problems are listed."),
    });
  });

  it("answers a tool it does not have with a protocol error", async () => {
    const client = await connectWith(() => new Response(null, { status: 500 }));
    await expect(client.callTool({ name: "delete_account", arguments: {} })).rejects.toThrow(/Unknown tool/);
  });
});
