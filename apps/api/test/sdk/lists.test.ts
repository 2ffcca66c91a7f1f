import type { ListRow, Verbatim } from "@verbatim/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { idsOf, MemoryListSource, startListServer } from "../lists/memory-list-source.ts";
import { sdkFor } from "../support/sdk.ts";
import type { TestServer } from "../support/server.ts";
import { serverStartTimeoutMs } from "../support/youtube-server.ts";

// Channel, playlist and search lists through the SDK against a live server whose YouTube lists
// come from pages held in memory: the SDK's iterators must give exactly the source's list.

let server: TestServer;
/** The source the server reads lists from; each test sets its own. */
let source = new MemoryListSource([30, 30, 13]);

beforeAll(async () => {
  server = await startListServer(() => source);
}, serverStartTimeoutMs);
afterAll(() => server?.close());

/** The SDK for a new account, and what the ledger charged that account per operation. */
async function newAccount(): Promise<{ verbatim: Verbatim; charged: () => Promise<Record<string, number>> }> {
  const { account, key } = await server.platform.accounts.create({ plan: "pro", credits: 100, name: "sdk lists" });
  return {
    verbatim: sdkFor(server, { apiKey: key.key }),
    async charged() {
      const report = await server.platform.usage.report(account.id, null);
      return Object.fromEntries(report.endpoints.map((row) => [row.endpoint, row.credits_spent]));
    },
  };
}

async function collect(rows: AsyncIterable<ListRow>): Promise<string[]> {
  const collected: ListRow[] = [];
  for await (const row of rows) collected.push(row);
  return idsOf(collected);
}

describe("one page", () => {
  it("channel() answers the first page of the channel with a cursor, charged 1 credit", async () => {
    source = new MemoryListSource([30, 30, 13]);
    const { verbatim, charged } = await newAccount();
    const page = await verbatim.transcripts.channel({ channel: "@memory", limit: 7 });
    expect(page.data).toMatchObject({ kind: "video_list", source: "channel", platform: "youtube" });
    expect(idsOf(page.data.videos)).toEqual(source.videoIds.slice(0, 7));
    expect(page.data.next_cursor).toEqual(expect.any(String));
    expect(page.usage).toEqual({ credits_spent: 1, balance: 99, bytes: 0 });
    expect(page.requestId).toMatch(/^req_[0-9A-Z]{26}$/);
    expect(await charged()).toEqual({ "POST /transcripts/channel": 1 });
  });

  it("playlist() and search() answer a page of their own list, a cursor only when more follows", async () => {
    source = new MemoryListSource([4]);
    const { verbatim } = await newAccount();
    const playlist = await verbatim.transcripts.playlist({ playlist: "PLmemorylist" });
    expect(playlist.data).toMatchObject({ source: "playlist", next_cursor: null });
    expect(idsOf(playlist.data.videos)).toEqual(source.videoIds);
    const search = await verbatim.transcripts.search({ query: "zoo", limit: 3 });
    expect(search.data).toMatchObject({ source: "search", next_cursor: expect.any(String) });
    expect(idsOf(search.data.videos)).toEqual(source.videoIds.slice(0, 3));
    expect(source.calls.map((call) => call.target)).toEqual([
      { kind: "playlist", playlist: "PLmemorylist" },
      { kind: "search", query: "zoo", type: "video" },
    ]);
  });
});

describe("iterating a whole list", () => {
  it("channelVideos yields every video of the source once, in order, following cursors across 11 pages", async () => {
    source = new MemoryListSource([30, 30, 13]);
    const { verbatim, charged } = await newAccount();
    expect(await collect(verbatim.transcripts.channelVideos({ channel: "@memory", limit: 7 }))).toEqual(
      source.videoIds,
    );
    expect(await charged()).toEqual({ "POST /transcripts/channel": 11 });
  });

  it("playlistVideos and searchVideos do the same for their lists", async () => {
    source = new MemoryListSource([10, 10, 3]);
    const { verbatim, charged } = await newAccount();
    expect(await collect(verbatim.transcripts.playlistVideos({ playlist: "PLmemorylist", limit: 5 }))).toEqual(
      source.videoIds,
    );
    expect(await collect(verbatim.transcripts.searchVideos({ query: "zoo", limit: 6 }))).toEqual(source.videoIds);
    expect(await charged()).toEqual({ "POST /transcripts/playlist": 5, "POST /transcripts/search": 4 });
  });

  it("pages() yields each page with its own request id and usage, ending on the page without a cursor", async () => {
    source = new MemoryListSource([30, 30, 13]);
    const { verbatim } = await newAccount();
    const pages = [];
    for await (const page of verbatim.transcripts.channelVideos({ channel: "@memory", limit: 10 }).pages()) {
      pages.push(page);
    }
    expect(pages.map((page) => page.data.videos.length)).toEqual([10, 10, 10, 10, 10, 10, 10, 3]);
    expect(idsOf(pages.flatMap((page) => page.data.videos))).toEqual(source.videoIds);
    expect(pages.map((page) => page.data.next_cursor === null)).toEqual([...Array(7).fill(false), true]);
    expect(pages.map((page) => page.usage.credits_spent)).toEqual(Array(8).fill(1));
    expect(pages.map((page) => page.usage.balance)).toEqual([99, 98, 97, 96, 95, 94, 93, 92]);
    expect(new Set(pages.map((page) => page.requestId)).size).toBe(8);
  });

  it("starts at the cursor it is given", async () => {
    source = new MemoryListSource([30, 30, 13]);
    const { verbatim } = await newAccount();
    const first = await verbatim.transcripts.channel({ channel: "@memory", limit: 7 });
    const rest = verbatim.transcripts.channelVideos({
      channel: "@memory",
      limit: 7,
      cursor: first.data.next_cursor ?? "",
    });
    expect(await collect(rest)).toEqual(source.videoIds.slice(7));
  });
});

describe("toArray", () => {
  it("stops at max without asking for a page beyond it", async () => {
    source = new MemoryListSource([30, 30, 13]);
    const { verbatim, charged } = await newAccount();
    const rows = await verbatim.transcripts.channelVideos({ channel: "@memory", limit: 7 }).toArray(10);
    expect(idsOf(rows)).toEqual(source.videoIds.slice(0, 10));
    expect(await charged()).toEqual({ "POST /transcripts/channel": 2 });
  });

  it("reads the whole list without max", async () => {
    source = new MemoryListSource([12, 5]);
    const { verbatim } = await newAccount();
    expect(idsOf(await verbatim.transcripts.searchVideos({ query: "zoo", limit: 8 }).toArray())).toEqual(
      source.videoIds,
    );
  });
});

describe("since_video_id", () => {
  it("stops at the marker on a later page exactly where the API's own cursor walk stops", async () => {
    source = new MemoryListSource([30, 30, 13]);
    const marker = source.videoIds[33] ?? "";
    const request = { channel: "@memory", limit: 7, since_video_id: marker };

    const apiPages: string[][] = [];
    let cursor: string | undefined;
    do {
      const { data, error, response } = await server.client.POST("/transcripts/channel", {
        body: { ...request, ...(cursor ? { cursor } : {}) },
      });
      if (!data) throw new Error(`page ${apiPages.length + 1}: ${response.status} ${JSON.stringify(error)}`);
      apiPages.push(idsOf(data.data.videos));
      cursor = data.data.next_cursor ?? undefined;
    } while (cursor);

    const { verbatim, charged } = await newAccount();
    const sdkPages: string[][] = [];
    for await (const page of verbatim.transcripts.channelVideos(request).pages()) {
      sdkPages.push(idsOf(page.data.videos));
    }
    expect(sdkPages).toEqual(apiPages);
    expect(sdkPages.map((ids) => ids.length)).toEqual([7, 7, 7, 7, 5]);
    expect(sdkPages.flat()).toEqual(source.videoIds.slice(0, 33));
    expect(await charged()).toEqual({ "POST /transcripts/channel": 5 });
    expect(await collect(verbatim.transcripts.channelVideos(request))).toEqual(source.videoIds.slice(0, 33));
  });

  it("yields nothing when the marker is the newest video", async () => {
    source = new MemoryListSource([30]);
    const { verbatim } = await newAccount();
    const rows = await verbatim.transcripts
      .playlistVideos({ playlist: "PLmemorylist", since_video_id: source.videoIds[0] ?? "" })
      .toArray();
    expect(rows).toEqual([]);
  });
});
