import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { createClient } from "@verbatim/sdk";
import { audioFixture } from "@verbatim/testkit/fake-podcast-host";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AudioServer, startAudioServer } from "../audio/harness.ts";
import { callTool, connectOverHttp, expectToolError, textOf } from "./mcp-client.ts";

let server: AudioServer;
let mcp: Client;
let tools: Tool[];

beforeAll(async () => {
  server = await startAudioServer({ inlineAudioSeconds: 0 });
  server.host.serveFile("/media/jfk.wav", audioFixture("whisper-cpp/jfk.wav"), "audio/wav");
  mcp = await connectOverHttp(server.baseUrl, server.key.key);
  tools = (await mcp.listTools()).tools;
});

afterAll(async () => {
  await mcp?.close();
  await server?.close();
});

describe("speech recognition as a job", () => {
  it("get_transcript answers the job's id, get_job polls it to its text; only get_transcript counts as a request", async () => {
    const started = await callTool(mcp, tools, "get_transcript", { video: server.host.url("/media/jfk.wav") });
    expect(started.isError, JSON.stringify(started)).toBeFalsy();
    expect(started.structuredContent).toMatchObject({
      status: "processing",
      job_id: expect.stringMatching(/^job_/),
      usage: { credits_spent: 0 },
    });
    const jobId = started.structuredContent.job_id as string;
    expect(textOf(started)).toContain(`get_job with job_id "${jobId}"`);

    let polls = 0;
    let finished = started;
    const deadline = Date.now() + 60_000;
    while (finished.structuredContent.status !== "completed") {
      if (Date.now() > deadline) throw new Error(`job still processing: ${JSON.stringify(finished)}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
      finished = await callTool(mcp, tools, "get_job", { job_id: jobId });
      polls++;
      expect(finished.isError, JSON.stringify(finished)).toBeFalsy();
      expect(finished.structuredContent.job_id).toBe(jobId);
    }
    expect(finished.structuredContent).toMatchObject({
      source: "audio",
      truncated: false,
      usage: { credits_spent: 1 },
    });
    expect(String(finished.structuredContent.text).toLowerCase()).toContain("country can do for you");

    const credits = await callTool(mcp, tools, "get_credits");
    const requestAllowance = credits.structuredContent.rate_limit as { limit: number; remaining: number };
    expect(requestAllowance.remaining, "get_transcript is the only request").toBe(requestAllowance.limit - 1);
    const poll = await createClient({ baseUrl: server.baseUrl, apiKey: server.key.key }).GET("/me");
    const pollLimit = Number(poll.response.headers.get("x-ratelimit-limit"));
    expect(
      Number(poll.response.headers.get("x-ratelimit-remaining")),
      "initialize, its notification and tools/list; get_job polls, get_credits and this poll",
    ).toBe(pollLimit - 3 - polls - 2);

    const firstPage = await callTool(mcp, tools, "get_job", { job_id: jobId, max_chars: 100 });
    expect(firstPage.structuredContent).toMatchObject({ truncated: true, next_offset: 100 });
    const rest = await callTool(mcp, tools, "get_job", { job_id: jobId, max_chars: 100_000, offset: 100 });
    expect(`${firstPage.structuredContent.text}${rest.structuredContent.text}`).toBe(finished.structuredContent.text);
  });

  it("answers an unknown job as a not_found error result", async () => {
    const result = await callTool(mcp, tools, "get_job", { job_id: "job_01ARZ3NDEKTSV4RRFFQ69G5FAV" });
    expectToolError(result, "not_found");
  });
});
