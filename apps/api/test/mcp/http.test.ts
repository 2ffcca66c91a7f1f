import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { createClient } from "@verbatim/sdk";
import { registerRecordedLists } from "@verbatim/testkit/youtube-lists";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectErrorEnvelope, send } from "../support/http.ts";
import { serverStartTimeoutMs, startYoutubeServer, type YoutubeTestServer } from "../support/youtube-server.ts";
import {
  callTool,
  compile,
  connectOverHttp,
  expectToolError,
  privateVideo,
  registerVideos,
  surfaceGo,
  surfaceGoText,
  textOf,
} from "./mcp-client.ts";

let yt: YoutubeTestServer;
let mcp: Client;
let tools: Tool[];

beforeAll(async () => {
  yt = await startYoutubeServer({ credits: 100 });
  registerVideos(yt);
  registerRecordedLists(yt.fake);
  mcp = await connectOverHttp(yt.server.baseUrl, yt.server.key.key);
  tools = (await mcp.listTools()).tools;
}, serverStartTimeoutMs);

afterAll(async () => {
  await mcp?.close();
  await yt?.close();
});

/** A new account on the server and an MCP client with its key. */
async function newAccount(options: { plan?: "free" | "pro"; credits: number }) {
  const { account, key } = await yt.server.platform.accounts.create({
    plan: options.plan ?? "pro",
    credits: options.credits,
    name: "mcp",
  });
  return { account, key, mcp: await connectOverHttp(yt.server.baseUrl, key.key) };
}

describe("tools/list", () => {
  it("lists the eleven tools, each with a closed input schema and an output schema that strict ajv compiles", () => {
    expect(tools.map((tool) => tool.name)).toEqual([
      "get_transcript",
      "list_languages",
      "get_metadata",
      "search_videos",
      "list_channel_videos",
      "list_playlist_videos",
      "get_credits",
      "get_job",
      "start_live_session",
      "read_live_session",
      "stop_live_session",
    ]);
    // Starting and stopping a live session change it; every other tool only reads.
    const changing = new Set(["start_live_session", "stop_live_session"]);
    for (const tool of tools) {
      expect(tool.inputSchema.additionalProperties, tool.name).toBe(false);
      expect(() => compile(tool.inputSchema), tool.name).not.toThrow();
      expect(tool.outputSchema?.type, tool.name).toBe("object");
      expect(() => compile(tool.outputSchema as object), tool.name).not.toThrow();
      expect(tool.annotations, tool.name).toMatchObject({
        readOnlyHint: !changing.has(tool.name),
        destructiveHint: false,
        openWorldHint: true,
      });
    }
  });

  it("takes get_transcript's video, mode, language and translate_to from the contract's TranscriptRequest", () => {
    const properties = tools[0]?.inputSchema.properties as Record<string, Record<string, unknown>>;
    expect(properties.video).toMatchObject({ type: "string", minLength: 1, maxLength: 2000 });
    expect(properties.mode).toMatchObject({ type: "string", enum: ["auto", "captions", "audio"], default: "auto" });
    expect(properties.language?.pattern).toBe("^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$");
    expect(properties.translate_to).toMatchObject({ type: "string", minLength: 2, maxLength: 35 });
    expect(tools[0]?.inputSchema.required).toEqual(["video"]);
  });
});

describe("GET /.well-known/mcp/server-card.json", () => {
  it("describes the server, its /mcp endpoint, bearer authentication and exactly the listed tools", async () => {
    const answer = await send(yt.server, {
      method: "GET",
      path: "/.well-known/mcp/server-card.json",
      authorized: false,
    });
    expect(answer.status, answer.text).toBe(200);
    const card = answer.body as Record<string, unknown>;
    expect(card).toMatchObject({
      name: "verbatim",
      title: "Verbatim",
      transport: { type: "streamable-http", url: `${yt.server.baseUrl}/mcp` },
      authentication: { type: "bearer" },
    });
    expect(card.version).toBe(mcp.getServerVersion()?.version);
    expect(card.instructions).toBe(mcp.getInstructions());
    expect(card.tools).toEqual(tools);
  });
});

describe("401 before MCP", () => {
  it("answers a POST /mcp without a key with 401 unauthorized in the API's envelope", async () => {
    const answer = await send(yt.server, {
      method: "POST",
      path: "/mcp",
      authorized: false,
      json: { jsonrpc: "2.0", id: 1, method: "tools/list" },
      headers: { accept: "application/json, text/event-stream" },
    });
    expectErrorEnvelope(answer, 401, "unauthorized");
  });

  it("answers an unknown key with 401 before any MCP message is read, so the client cannot connect", async () => {
    const answer = await send(yt.server, {
      method: "POST",
      path: "/mcp",
      authorized: false,
      json: { jsonrpc: "2.0", id: 1, method: "tools/list" },
      headers: { accept: "application/json, text/event-stream", authorization: `Bearer vb_live_${"x".repeat(40)}` },
    });
    expectErrorEnvelope(answer, 401, "unauthorized");
    await expect(connectOverHttp(yt.server.baseUrl, `vb_live_${"y".repeat(40)}`)).rejects.toThrow(/unauthorized/);
  });
});

describe("405 for anything but POST /mcp", () => {
  it("answers GET /mcp, which would open a stream, with 405 and Allow: POST, which MCP clients expect of a stateless server", async () => {
    const answer = await send(yt.server, {
      method: "GET",
      path: "/mcp",
      headers: { accept: "text/event-stream" },
    });
    expect(answer.status, answer.text).toBe(405);
    expect(answer.headers.get("allow")).toBe("POST");
  });
});

describe("get_transcript", () => {
  it("answers the captions as plain text with the transcript's metadata, charging 1 credit like the endpoint", async () => {
    const before = await yt.balance();
    const result = await callTool(mcp, tools, "get_transcript", { video: surfaceGo, language: "en" });
    expect(result.isError, JSON.stringify(result)).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      status: "completed",
      video_id: surfaceGo,
      title: "Surface Go Review - It’s Awesome",
      channel: "Dave2D",
      source: "captions",
      text: surfaceGoText,
      offset: 0,
      total_chars: surfaceGoText.length,
      truncated: false,
      next_offset: null,
      usage: { credits_spent: 1, balance: (before ?? 0) - 1 },
    });
    expect(textOf(result)).toContain(surfaceGoText);
    expect(await yt.balance()).toBe((before ?? 0) - 1);
  });

  it("gives one [mm:ss] line per segment with timestamps: true", async () => {
    const result = await callTool(mcp, tools, "get_transcript", { video: surfaceGo, timestamps: true });
    expect(result.structuredContent.text).toBe(
      [
        "[00:00] Microsoft's Surface Go is the smallest",
        "[00:02] and cheapest Surface & it's really good.",
        '[00:05] The "Type Cover" is sold separately.',
      ].join("\n"),
    );
  });

  it("pages a long text by max_chars: following next_offset reassembles the whole text, each page charged", async () => {
    const before = (await yt.balance()) ?? 0;
    const pages: string[] = [];
    let offset: number | null = 0;
    while (offset !== null) {
      const result = await callTool(mcp, tools, "get_transcript", { video: surfaceGo, max_chars: 100, offset });
      const page = result.structuredContent as { text: string; next_offset: number | null; truncated: boolean };
      expect(Array.from(page.text).length).toBeLessThanOrEqual(100);
      expect(page.truncated).toBe(page.next_offset !== null);
      if (page.truncated) expect(textOf(result)).toContain(`offset ${page.next_offset}`);
      pages.push(page.text);
      offset = page.next_offset;
    }
    expect(pages).toHaveLength(2);
    expect(pages.join("")).toBe(surfaceGoText);
    expect(await yt.balance()).toBe(before - 2);
  });

  it("with words: true, gives each page the times of its words and where they came from, at the same price", async () => {
    const before = (await yt.balance()) ?? 0;
    const pages: Array<{ text: string; words: Array<{ text: string; start: number }>; word_timing: string }> = [];
    let offset: number | null = 0;
    while (offset !== null) {
      const result = await callTool(mcp, tools, "get_transcript", {
        video: surfaceGo,
        words: true,
        max_chars: 100,
        offset,
      });
      expect(result.isError, JSON.stringify(result)).toBeFalsy();
      const page = result.structuredContent as (typeof pages)[number] & { next_offset: number | null };
      pages.push(page);
      offset = page.next_offset;
    }
    expect(pages.map((page) => page.word_timing)).toEqual(["estimated", "estimated"]);
    // Each word is in the page its first character is in.
    for (const page of pages) expect(page.text.startsWith(page.words[0]?.text ?? "")).toBe(true);
    expect(pages.flatMap((page) => page.words.map((word) => word.text)).join(" ")).toBe(surfaceGoText);
    expect(pages[0]?.words[0]).toEqual({ text: "Microsoft's", start: 0, duration: 0.77 });
    expect(await yt.balance()).toBe(before - 2);
  });

  it("answers a private video as an error result with the API's code and number, charging nothing", async () => {
    const before = await yt.balance();
    const result = await callTool(mcp, tools, "get_transcript", { video: privateVideo });
    const error = expectToolError(result, "private");
    expect(error.number).toBe(4001);
    expect(textOf(result)).toContain("(4001)");
    expect(result.structuredContent.error).toMatchObject({ docs: `${yt.server.baseUrl}/docs/errors/private` });
    expect(await yt.balance()).toBe(before);
  });

  it("answers arguments outside the schema as an invalid_request error result", async () => {
    const unknownField = await callTool(mcp, tools, "get_transcript", { video: surfaceGo, format: "srt" });
    expectToolError(unknownField, "invalid_request");
    const tooLarge = await callTool(mcp, tools, "get_transcript", { video: surfaceGo, max_chars: 100_001 });
    expect(expectToolError(tooLarge, "invalid_request").message).toContain("max_chars");
  });

  it("answers 20,000 unknown arguments with the first 50 problems and truncated: true, in a small answer", async () => {
    const args: Record<string, unknown> = { video: surfaceGo };
    for (let index = 0; index < 20_000; index++) args[`k${index}`] = 1;
    const before = await yt.balance();
    const result = await callTool(mcp, tools, "get_transcript", args);
    expectToolError(result, "invalid_request");
    const error = result.structuredContent.error as {
      message: string;
      issues: Array<{ path: string; message: string }>;
      truncated?: boolean;
    };
    expect(error.issues).toHaveLength(50);
    expect(error.issues[0]).toEqual({ path: "/arguments/k0", message: "must NOT have additional properties" });
    expect(error.truncated).toBe(true);
    expect(error.message).toContain("The first 50 of 20000 problems are listed.");
    expect(JSON.stringify(result).length).toBeLessThan(20_000);
    expect(await yt.balance()).toBe(before);
  });

  it("lists every problem of a few bad arguments, without truncated", async () => {
    const result = await callTool(mcp, tools, "get_transcript", { mode: "srt", max_chars: 1 });
    expectToolError(result, "invalid_request");
    const error = result.structuredContent.error as Record<string, unknown>;
    expect(error.issues).toEqual([
      { path: "/arguments/video", message: "must have required property 'video'" },
      { path: "/arguments/mode", message: "must be equal to one of the allowed values" },
      { path: "/arguments/max_chars", message: "must be >= 100" },
    ]);
    expect(error).not.toHaveProperty("truncated");
  });

  it("answers 402 insufficient_credits as an error result for an account without credits", async () => {
    const broke = await newAccount({ credits: 0 });
    const result = await callTool(broke.mcp, tools, "get_transcript", { video: surfaceGo });
    const error = expectToolError(result, "insufficient_credits");
    expect(Math.floor(error.number / 1000)).toBe(2);
    await broke.mcp.close();
  });
});

describe("get_metadata", () => {
  it("answers the video's metadata for 1 credit, readable and structured", async () => {
    const fresh = await newAccount({ plan: "free", credits: 3 });
    const result = await callTool(fresh.mcp, tools, "get_metadata", { video: surfaceGo });
    expect(result.isError, JSON.stringify(result)).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      platform: "youtube",
      video_id: surfaceGo,
      title: "Surface Go Review - It’s Awesome",
      channel: { name: "Dave2D" },
      duration: 316,
      chapters: [],
      usage: { credits_spent: 1, balance: 2, bytes: 0 },
    });
    expect(result.structuredContent).not.toHaveProperty("kind");
    expect(textOf(result)).toMatch(
      /^Surface Go Review - It’s Awesome \(youtube\), by Dave2D, 316 s\.\n\nDave2D review/,
    );
    await fresh.mcp.close();
  });

  it("answers a private video as an error result, free", async () => {
    const fresh = await newAccount({ plan: "free", credits: 3 });
    const result = await callTool(fresh.mcp, tools, "get_metadata", { video: privateVideo });
    expectToolError(result, "private");
    const credits = await callTool(fresh.mcp, tools, "get_credits");
    expect(credits.structuredContent).toMatchObject({ credits: 3 });
    await fresh.mcp.close();
  });
});

describe("list_languages and translate_to", () => {
  it("list_languages lists the tracks and their translation targets, free, as one request on the allowance", async () => {
    const fresh = await newAccount({ plan: "free", credits: 3 });
    const result = await callTool(fresh.mcp, tools, "list_languages", { video: surfaceGo });
    expect(result.isError, JSON.stringify(result)).toBeFalsy();
    const { languages, usage } = result.structuredContent as {
      languages: Array<{ language: string; kind: string; translatable: boolean; translation_targets: unknown[] }>;
      usage: unknown;
    };
    expect(languages).toHaveLength(9);
    expect(languages.find((track) => track.language === "en" && track.kind === "manual")).toMatchObject({
      translatable: true,
      translation_targets: expect.arrayContaining([{ language: "de", name: "German" }]),
    });
    expect(usage).toEqual({ credits_spent: 0, balance: 3, bytes: 0 });
    expect(textOf(result)).toContain('- en "English" (manual), translates into ar, zh-Hant');
    const credits = await callTool(fresh.mcp, tools, "get_credits");
    expect(credits.structuredContent).toMatchObject({ credits: 3, rate_limit: { remaining: 9 } });
    await fresh.mcp.close();
  });

  it("get_transcript's translate_to answers YouTube's translation with both languages", async () => {
    const result = await callTool(mcp, tools, "get_transcript", { video: surfaceGo, translate_to: "de" });
    expect(result.structuredContent).toMatchObject({ status: "completed", language: "de", source_language: "en" });
    expect(textOf(result)).toContain("Microsofts Surface Go ist das kleinste");
    const asked = yt.fake.requestsTo("/api/timedtext").map((request) => request.query.get("tlang"));
    expect(asked).toContain("de");
    expect(asked).not.toContain("en");
  });

  it("answers a translation YouTube does not offer as an error result listing those it does", async () => {
    const result = await callTool(mcp, tools, "get_transcript", { video: surfaceGo, translate_to: "sw" });
    const error = expectToolError(result, "translation_unavailable") as unknown as {
      retry_with: { translate_to: string[] };
    };
    expect(error.retry_with.translate_to).toContain("de");
    expect(error.retry_with.translate_to).not.toContain("en");
  });
});

describe("lists", () => {
  it("search_videos answers the search's first page of rows with a cursor", async () => {
    const result = await callTool(mcp, tools, "search_videos", { query: "test", limit: 3 });
    const page = result.structuredContent as { videos: Array<{ url: string }>; next_cursor: string | null };
    expect(page.videos).toHaveLength(3);
    expect(page.next_cursor).toEqual(expect.any(String));
    expect(textOf(result)).toContain(page.videos[0]?.url);
  });

  it("search_videos takes the contract's platform, and another than youtube answers unsupported_platform", async () => {
    const tool = tools.find((candidate) => candidate.name === "search_videos");
    const properties = tool?.inputSchema.properties as Record<string, { enum?: unknown[] }>;
    expect(properties.platform?.enum).toEqual(["youtube", "tiktok", "instagram", "spotify", "apple", "rss"]);
    const result = await callTool(mcp, tools, "search_videos", { query: "test", platform: "tiktok" });
    expectToolError(result, "unsupported_platform");
    expect(result.structuredContent.error).toMatchObject({ number: 3001 });
  });

  it("list_channel_videos follows next_cursor to the channel's next page", async () => {
    const first = await callTool(mcp, tools, "list_channel_videos", {
      channel: "https://www.youtube.com/user/creativecommons",
      limit: 2,
    });
    const firstPage = first.structuredContent as { videos: Array<{ videoId: string }>; next_cursor: string };
    const second = await callTool(mcp, tools, "list_channel_videos", {
      channel: "https://www.youtube.com/user/creativecommons",
      limit: 2,
      cursor: firstPage.next_cursor,
    });
    const secondPage = second.structuredContent as { videos: Array<{ videoId: string }> };
    expect(secondPage.videos).toHaveLength(2);
    expect(secondPage.videos.map((row) => row.videoId)).not.toEqual(firstPage.videos.map((row) => row.videoId));
  });

  it("list_playlist_videos answers the playlist's rows, charging 1 credit", async () => {
    const before = await yt.balance();
    const result = await callTool(mcp, tools, "list_playlist_videos", {
      playlist: "PLoumn5BIsUDeGF1vy5Nylf_RJKn5aL_nr",
      limit: 5,
    });
    expect((result.structuredContent.videos as unknown[]).length).toBe(5);
    expect(result.structuredContent.usage).toMatchObject({ credits_spent: 1, balance: (before ?? 0) - 1 });
  });
});

describe("allowances", () => {
  it("counts a transcript call as one request; get_credits counts on the polling allowance instead", async () => {
    const fresh = await newAccount({ plan: "free", credits: 10 });
    const sdk = createClient({ baseUrl: yt.server.baseUrl, apiKey: fresh.key.key });
    const credits = await callTool(fresh.mcp, tools, "get_credits");
    expect(credits.structuredContent).toMatchObject({
      credits: 10,
      plan: "free",
      rate_limit: { limit: 10, remaining: 10 },
    });
    expect(textOf(credits)).toContain("10 credits left");

    await callTool(fresh.mcp, tools, "get_transcript", { video: surfaceGo });
    const after = await callTool(fresh.mcp, tools, "get_credits");
    expect(after.structuredContent).toMatchObject({ credits: 9, rate_limit: { remaining: 9 } });

    const poll = await sdk.GET("/me");
    expect(
      poll.response.headers.get("x-ratelimit-remaining"),
      "initialize and its notification, two get_credits and this poll",
    ).toBe(String(120 - 5));
    await fresh.mcp.close();
  });
});
