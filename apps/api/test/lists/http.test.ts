import type { VerbatimClient } from "@verbatim/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UpstreamError } from "../../src/adapters/youtube/index.ts";
import { cursorLifetimeMs, ListCursors } from "../../src/services/cursors/list-cursors.ts";
import type { TestServer } from "../support/server.ts";
import { serverStartTimeoutMs } from "../support/youtube-server.ts";
import { idsOf, MemoryListSource, startListServer } from "./memory-list-source.ts";

// The list routes over a `VideoListSource` held in memory: charging, refusals and guards, with
// YouTube's paging left to the recorded walks in walks.test.ts.

let server: TestServer;
/** The source the server reads lists from; each test sets its own. */
let source = new MemoryListSource([30, 30, 13]);

beforeAll(async () => {
  server = await startListServer(() => source);
}, serverStartTimeoutMs);
afterAll(() => server?.close());

function balance(accountId = server.account.id): Promise<number | null> {
  return server.platform.credits.balance(accountId);
}

/** What the ledger says this account was charged per operation. */
async function charges(accountId = server.account.id) {
  return (await server.platform.usage.report(accountId, null)).endpoints;
}

/** A client of a new account, for tests that need their own balance or plan. */
async function clientOfNewAccount(options: { plan?: "free" | "pro"; credits: number }) {
  const { account, key } = await server.platform.accounts.create({
    plan: options.plan ?? "pro",
    credits: options.credits,
    name: "lists",
  });
  return { accountId: account.id, client: server.clientFor(key.key) };
}

function listChannel(
  body: {
    channel: string;
    limit?: number;
    cursor?: string;
    since_video_id?: string;
    sort?: "popular" | "newest" | "oldest";
    query?: string;
  },
  client: VerbatimClient = server.client,
) {
  return client.POST("/transcripts/channel", { body });
}

describe("200: a page of a list", () => {
  it("answers the channel's first 7 videos as a video_list with a cursor, for 1 credit recorded in the ledger", async () => {
    source = new MemoryListSource([30, 30, 13]);
    const { accountId, client } = await clientOfNewAccount({ credits: 50 });
    const { data, error, response } = await listChannel({ channel: "@memory", limit: 7 }, client);
    expect(response.status, JSON.stringify(error)).toBe(200);
    expect(data?.data).toMatchObject({ kind: "video_list", source: "channel", platform: "youtube" });
    expect(idsOf(data?.data.videos ?? [])).toEqual(source.videoIds.slice(0, 7));
    expect(data?.data.next_cursor).toEqual(expect.any(String));
    expect(data?.data.next_cursor?.length).toBeLessThan(256);
    expect(data?.usage).toEqual({ credits_spent: 1, balance: 49, bytes: 0 });
    expect(await balance(accountId)).toBe(49);
    expect(await charges(accountId)).toEqual([
      { endpoint: "POST /transcripts/channel", credits_spent: 1, requests: 1 },
    ]);
  });

  it("answers playlists and searches with their own source", async () => {
    source = new MemoryListSource([3]);
    const playlist = await server.client.POST("/transcripts/playlist", { body: { playlist: "PLmemorylist" } });
    expect(playlist.response.status, JSON.stringify(playlist.error)).toBe(200);
    expect(playlist.data?.data).toMatchObject({ source: "playlist", next_cursor: null });
    const search = await server.client.POST("/transcripts/search", { body: { query: "zoo" } });
    expect(search.response.status, JSON.stringify(search.error)).toBe(200);
    expect(search.data?.data).toMatchObject({ source: "search", next_cursor: null });
    expect(source.calls.map((call) => call.target)).toEqual([
      { kind: "playlist", playlist: "PLmemorylist" },
      { kind: "search", query: "zoo", type: "video" },
    ]);
  });

  it("walks a list of 73 videos with limit 7 in 11 pages, every video once, charging 1 credit per page", async () => {
    source = new MemoryListSource([30, 30, 13]);
    const { accountId, client } = await clientOfNewAccount({ credits: 50 });
    const seen: string[] = [];
    const credits: number[] = [];
    let cursor: string | undefined;
    do {
      const { data, error, response } = await listChannel(
        { channel: "@memory", limit: 7, ...(cursor ? { cursor } : {}) },
        client,
      );
      if (!data) throw new Error(`page ${credits.length + 1}: ${response.status} ${JSON.stringify(error)}`);
      seen.push(...idsOf(data.data.videos));
      credits.push(data.usage.credits_spent);
      cursor = data.data.next_cursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual(source.videoIds);
    expect(credits).toEqual(Array(11).fill(1));
    expect(await balance(accountId)).toBe(39);
    expect(await charges(accountId)).toEqual([
      { endpoint: "POST /transcripts/channel", credits_spent: 11, requests: 11 },
    ]);
  });

  it("answers an empty list for free", async () => {
    source = new MemoryListSource([]);
    const { accountId, client } = await clientOfNewAccount({ credits: 5 });
    const { data, response } = await client.POST("/transcripts/search", { body: { query: "nothing" } });
    expect(response.status).toBe(200);
    expect(data?.data).toMatchObject({ videos: [], next_cursor: null });
    expect(data?.usage).toEqual({ credits_spent: 0, balance: 5, bytes: 0 });
    expect(await charges(accountId)).toEqual([]);
  });

  it("charges 1 credit for a since_video_id request that finds nothing new", async () => {
    source = new MemoryListSource([30]);
    const { accountId, client } = await clientOfNewAccount({ credits: 5 });
    const newest = source.videoIds[0] ?? "";
    const { data, response } = await listChannel({ channel: "@memory", since_video_id: newest }, client);
    expect(response.status).toBe(200);
    expect(data?.data).toMatchObject({ videos: [], next_cursor: null });
    expect(data?.usage).toEqual({ credits_spent: 1, balance: 4, bytes: 0 });
    expect(await charges(accountId)).toEqual([
      { endpoint: "POST /transcripts/channel", credits_spent: 1, requests: 1 },
    ]);
  });

  it("trims to the videos newer than since_video_id given as a URL, for 1 credit", async () => {
    source = new MemoryListSource([30]);
    const marker = source.videoIds[2] ?? "";
    const { data } = await listChannel({ channel: "@memory", since_video_id: `https://youtu.be/${marker}` });
    expect(idsOf(data?.data.videos ?? [])).toEqual(source.videoIds.slice(0, 2));
    expect(data?.data.next_cursor).toBeNull();
    expect(data?.usage.credits_spent).toBe(1);
  });
});

describe("200: an Idempotency-Key replays the page", () => {
  it("answers the stored page without another upstream call or charge", async () => {
    source = new MemoryListSource([30]);
    const { accountId, client } = await clientOfNewAccount({ credits: 10 });
    const request = () =>
      client.POST("/transcripts/playlist", {
        body: { playlist: "PLmemorylist", limit: 3 },
        params: { header: { "Idempotency-Key": "playlist-page-once" } },
      });
    const first = await request();
    expect(first.response.status, JSON.stringify(first.error)).toBe(200);
    const replay = await request();
    expect(replay.response.status).toBe(200);
    expect(replay.response.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.data).toEqual(first.data);
    expect(source.calls).toHaveLength(1);
    expect(await balance(accountId)).toBe(9);
  });
});

describe("400 invalid_cursor", () => {
  it("refuses an altered cursor with 1002 and charges nothing", async () => {
    source = new MemoryListSource([30]);
    const { accountId, client } = await clientOfNewAccount({ credits: 10 });
    const first = await listChannel({ channel: "@memory", limit: 2 }, client);
    const [version, id = "", expiry, signature] = (first.data?.data.next_cursor ?? "").split(".");
    const otherId = `${id.slice(0, -1)}${id.endsWith("A") ? "B" : "A"}`;
    const { error, response } = await listChannel(
      { channel: "@memory", limit: 2, cursor: `${version}.${otherId}.${expiry}.${signature}` },
      client,
    );
    expect(response.status, JSON.stringify(error)).toBe(400);
    expect(error?.error).toMatchObject({ code: "invalid_cursor", number: 1002 });
    expect(error?.error.message).toMatch(/not issued by this server or was altered/);
    expect(await balance(accountId)).toBe(9);
  });

  it("refuses a cursor whose position was swept as expired with 1002", async () => {
    source = new MemoryListSource([30]);
    const first = await listChannel({ channel: "@memory", limit: 2 });
    const aDayLater = new ListCursors(server.platform.store, () => new Date(Date.now() + cursorLifetimeMs + 60_000));
    expect(await aDayLater.sweep()).toBeGreaterThan(0);
    const { error, response } = await listChannel({
      channel: "@memory",
      limit: 2,
      cursor: first.data?.data.next_cursor ?? "",
    });
    expect(response.status, JSON.stringify(error)).toBe(400);
    expect(error?.error).toMatchObject({ code: "invalid_cursor", number: 1002 });
    expect(error?.error.message).toMatch(/expired/);
  });

  it("refuses a channel cursor sent to the playlist endpoint with 1002", async () => {
    source = new MemoryListSource([30]);
    const first = await listChannel({ channel: "PLmemorylist", limit: 2 });
    const { error, response } = await server.client.POST("/transcripts/playlist", {
      body: { playlist: "PLmemorylist", limit: 2, cursor: first.data?.data.next_cursor ?? "" },
    });
    expect(response.status, JSON.stringify(error)).toBe(400);
    expect(error?.error).toMatchObject({ code: "invalid_cursor", number: 1002 });
  });

  it("honours a cursor issued by another process of the deployment", async () => {
    source = new MemoryListSource([30]);
    const otherProcess = new ListCursors(server.platform.store, () => new Date());
    const cursor = await otherProcess.issue(
      { kind: "channel", channel: "@memory", tab: "videos", sort: "newest" },
      {
        continuation: null,
        skip: 4,
      },
    );
    const { data, error, response } = await listChannel({ channel: "@memory", limit: 2, cursor });
    expect(response.status, JSON.stringify(error)).toBe(200);
    expect(idsOf(data?.data.videos ?? [])).toEqual(source.videoIds.slice(4, 6));
  });

  it("treats an empty cursor as the first page", async () => {
    source = new MemoryListSource([30]);
    const { data, response } = await listChannel({ channel: "@memory", limit: 2, cursor: "" });
    expect(response.status).toBe(200);
    expect(idsOf(data?.data.videos ?? [])).toEqual(source.videoIds.slice(0, 2));
  });
});

describe("400 invalid_request: since_video_id where it marks nothing", () => {
  const cases = [
    {
      what: "a channel in the popular order",
      path: "/transcripts/channel",
      body: { channel: "@memory", sort: "popular" },
      issue: "not allowed with sort popular",
    },
    {
      what: "a search inside a channel",
      path: "/transcripts/channel",
      body: { channel: "@memory", query: "zoo" },
      issue: "not allowed with query",
    },
    {
      what: "a playlist search",
      path: "/transcripts/search",
      body: { query: "zoo", type: "playlist" },
      issue: "not allowed with type playlist",
    },
  ] as const;
  for (const { what, path, body, issue } of cases) {
    it(`refuses it with ${what}, with the issue at /body/since_video_id, before any upstream call`, async () => {
      source = new MemoryListSource([30]);
      const { error, response } = await server.client.POST(path, {
        body: { ...body, since_video_id: "jNQXAC9IVRw" } as never,
      });
      expect(response.status, JSON.stringify(error)).toBe(400);
      expect(error?.error).toMatchObject({
        code: "invalid_request",
        number: 1001,
        issues: [{ path: "/body/since_video_id", message: issue }],
      });
      expect(source.calls).toEqual([]);
    });
  }
});

describe("402 insufficient_credits", () => {
  it("refuses an account without credits before any upstream call", async () => {
    source = new MemoryListSource([30]);
    const { client } = await clientOfNewAccount({ credits: 0 });
    const { error, response } = await listChannel({ channel: "@memory" }, client);
    expect(response.status, JSON.stringify(error)).toBe(402);
    expect(error?.error).toMatchObject({ code: "insufficient_credits", number: 2001 });
    expect(source.calls).toEqual([]);
  });
});

describe("422 unsupported_platform", () => {
  it("refuses a search of another platform with 3001 before any upstream call or charge", async () => {
    source = new MemoryListSource([30]);
    const { accountId, client } = await clientOfNewAccount({ credits: 5 });
    const { error, response } = await client.POST("/transcripts/search", {
      body: { query: "zoo", platform: "tiktok" },
    });
    expect(response.status, JSON.stringify(error)).toBe(422);
    expect(error?.error).toMatchObject({ code: "unsupported_platform", number: 3001 });
    expect(source.calls).toEqual([]);
    expect(await balance(accountId)).toBe(5);
  });
});

describe("503: YouTube fails", () => {
  it("answers upstream_error (5001) and charges nothing", async () => {
    source = new MemoryListSource([30]).failWith(new UpstreamError("blocked", "YouTube asked for a bot check."));
    const { accountId, client } = await clientOfNewAccount({ credits: 5 });
    const { error, response } = await listChannel({ channel: "@memory" }, client);
    expect(response.status, JSON.stringify(error)).toBe(503);
    expect(error?.error).toMatchObject({ code: "upstream_error", number: 5001 });
    expect(await balance(accountId)).toBe(5);
    expect(await charges(accountId)).toEqual([]);
  });
});

describe("429: every extraction slot is busy", () => {
  it("holds a slot per list request: a third request of a Free account waits for none, 2101 with Retry-After", async () => {
    let open = () => {};
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    source = new MemoryListSource([30], { gate });
    const { accountId, client } = await clientOfNewAccount({ plan: "free", credits: 10 });
    const running = [
      listChannel({ channel: "@memory" }, client),
      client.POST("/transcripts/search", { body: { query: "zoo" } }),
    ];
    const deadline = Date.now() + 5_000;
    while (source.calls.length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    const { error, response } = await client.POST("/transcripts/playlist", { body: { playlist: "PLmemorylist" } });
    expect(response.status, JSON.stringify(error)).toBe(429);
    expect(error?.error).toMatchObject({ code: "rate_limited", number: 2101 });
    expect(response.headers.get("retry-after")).toBe("2");
    open();
    const finished = await Promise.all(running);
    expect(finished.map((result) => result.response.status)).toEqual([200, 200]);
    expect(await balance(accountId)).toBe(8);
  });
});
