import { type PlatformDouble, startPlatformDouble } from "@verbatim/testkit/platform-double";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AudioServer, startAudioServer } from "../audio/harness.ts";
import type { Loose } from "../audio/requests.ts";
import { callTool, connectOverHttp } from "../mcp/mcp-client.ts";
import { send } from "../support/http.ts";
import { testEngine } from "../support/store.ts";
import { expectAnchorShape, expectDeprecated } from "../v1/support.ts";

// The platforms yt-dlp reads, through every surface besides the one-video route: the batch, v1,
// the MCP tool and the library. Each scenario has an account of its own, so none sees another's
// library or allowance, and they run at once.
const jfkWords = /what your country can do for you/i;
const tiktokCaptions = "https://www.tiktok.com/@verbatim.tests/video/7400000000000000001";
const tiktokId = "7400000000000000001";
const vimeoCaptions = "https://player.vimeo.com/video/76979871";
const vimeoId = "76979871";
const deletedDailymotion = "https://www.dailymotion.com/video/x8gone5";

let double: PlatformDouble;
let server: AudioServer;

beforeAll(async () => {
  double = await startPlatformDouble({ platforms: ["tiktok", "vimeo", "dailymotion"] });
  server = await startAudioServer({ platformDouble: double, credits: 1_000 });
}, 120_000);

afterAll(async () => {
  await server?.close();
  await double?.close();
});

/** A new Pro account's key, with credits of its own. */
async function newAccountKey(name: string): Promise<string> {
  const { key } = await server.platform.accounts.create({ plan: "pro", credits: 100, name });
  return key.key;
}

/** A JSON request with `key`; answers the parsed body and status. */
async function call(key: string, method: string, path: string, json?: unknown) {
  return send(server, {
    method,
    path,
    headers: { authorization: `Bearer ${key}` },
    ...(json === undefined ? {} : { json }),
  });
}

function wordsOf(segments: Loose[]): string {
  return segments.map((segment) => segment.text).join(" ");
}

describe.concurrent(`video platforms on every surface (${testEngine})`, () => {
  it("POST /api/v2/transcripts/batch: a TikTok and a Vimeo row ok, a deleted Dailymotion item an unavailable error row", async () => {
    const key = await newAccountKey("batch");
    const answer = await call(key, "POST", "/api/v2/transcripts/batch", {
      video_ids: [tiktokCaptions, vimeoCaptions, deletedDailymotion],
    });
    expect(answer.status, answer.text).toBe(200);
    const body = answer.body as Loose;
    const [tiktok, vimeo, dailymotion] = body.data.results;
    expect(body.data.results.map((row: Loose) => [row.input, row.outcome])).toEqual([
      [tiktokCaptions, "ok"],
      [vimeoCaptions, "ok"],
      [deletedDailymotion, "error"],
    ]);
    expect(tiktok).toMatchObject({ video_id: tiktokId, platform: "tiktok", source: "captions" });
    expect(vimeo).toMatchObject({ video_id: vimeoId, platform: "vimeo", source: "captions" });
    for (const row of [tiktok, vimeo]) {
      expect(row.text).toMatch(jfkWords);
      expect(row.text).toBe(wordsOf(row.segments));
    }
    expect(dailymotion.error).toMatchObject({ code: "unavailable", number: 4002 });
    expect(body.usage).toMatchObject({ credits_spent: 2, balance: 98 });
  });

  it("POST /api/v1/transcripts/video: a TikTok link answers in v1's shape", async () => {
    const key = await newAccountKey("v1");
    const answer = await call(key, "POST", "/api/v1/transcripts/video", { video: tiktokCaptions });
    expect(answer.status, answer.text).toBe(200);
    expectAnchorShape("fetchVideoTranscript", answer);
    expectDeprecated(answer);
    const body = answer.body as Loose;
    expect(body.data).toEqual({
      kind: "transcript",
      video_id: tiktokId,
      platform: "tiktok",
      title: expect.any(String),
      thumbnailUrl: expect.toBeOneOf([null, expect.stringMatching(/^https:\/\//)]),
      segments: expect.any(Array),
    });
    expect(body.data.segments[0]).toEqual({
      start: expect.any(Number),
      duration: expect.any(Number),
      text: expect.any(String),
    });
    expect(wordsOf(body.data.segments)).toMatch(jfkWords);
    expect(body.usage).toEqual({ credits_spent: 1, balance: 99, bytes: expect.any(Number) });
  });

  it("the MCP tool get_transcript reads a Vimeo link's captions", async () => {
    const key = await newAccountKey("mcp");
    const mcp = await connectOverHttp(server.baseUrl, key);
    try {
      const { tools } = await mcp.listTools();
      const result = await callTool(mcp, tools, "get_transcript", { video: vimeoCaptions });
      expect(result.isError, JSON.stringify(result)).toBeFalsy();
      expect(result.structuredContent).toMatchObject({
        status: "completed",
        video_id: vimeoId,
        source: "captions",
        truncated: false,
        usage: { credits_spent: 1 },
      });
      expect(String(result.structuredContent.text)).toMatch(jfkWords);
    } finally {
      await mcp.close();
    }
  });

  it("the library lists the TikTok transcript as tiktok, and a search links each moment as its platform allows", async () => {
    const key = await newAccountKey("library");
    for (const video of [tiktokCaptions, vimeoCaptions]) {
      const fetched = await call(key, "POST", "/api/v2/transcripts/video", { video });
      expect(fetched.status, fetched.text).toBe(200);
    }

    const listed = await call(key, "GET", "/api/v2/library?limit=100");
    expect(listed.status, listed.text).toBe(200);
    const entries = (listed.body as Loose).data.entries;
    expect(entries.map((entry: Loose) => [entry.platform, entry.video_id])).toEqual([
      ["vimeo", vimeoId],
      ["tiktok", tiktokId],
    ]);
    expect(entries[1]).toMatchObject({
      platform: "tiktok",
      source: "captions",
      url: expect.stringContaining(tiktokId),
    });

    const searched = await call(key, "POST", "/api/v2/library/search", { query: "country" });
    expect(searched.status, searched.text).toBe(200);
    const hits = (searched.body as Loose).data.hits;
    const hitOf = (videoId: string) => hits.find((hit: Loose) => hit.video_id === videoId);
    const entryOf = (videoId: string) => entries.find((entry: Loose) => entry.video_id === videoId);

    // TikTok has no link to a moment: the snippet links the video itself.
    const [tiktokSnippet] = hitOf(tiktokId).snippets;
    expect(tiktokSnippet.highlight).toContain("<mark>country</mark>");
    expect(tiktokSnippet.url).toBe(entryOf(tiktokId).url);

    // Vimeo opens at a moment given as a `#t=` fragment.
    const [vimeoSnippet] = hitOf(vimeoId).snippets;
    expect(vimeoSnippet.highlight).toContain("<mark>country</mark>");
    const vimeoLink = new URL(vimeoSnippet.url);
    expect(vimeoLink.hash).toBe(`#t=${Math.floor(vimeoSnippet.start)}s`);
    vimeoLink.hash = "";
    expect(vimeoLink.toString()).toBe(entryOf(vimeoId).url);
  });
});
