import {
  type InnertubeCall,
  innertubeCalls,
  type RecordedList,
  type RecordedLists,
  registerRecordedLists,
} from "@verbatim/testkit/youtube-lists";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ListTarget } from "../../src/adapters/youtube/video-lists.ts";
import { serverStartTimeoutMs, startYoutubeServer, type YoutubeTestServer } from "../support/youtube-server.ts";

// The three recorded YouTube lists walked over HTTP through the real adapter and the fake
// YouTube: YouTube's page sizes (30/30/2, 100/50, 20/20/2) become pages of exactly 7.

const limit = 7;

let yt: YoutubeTestServer;
let lists: RecordedLists;

beforeAll(async () => {
  yt = await startYoutubeServer({ credits: 1000 });
  lists = registerRecordedLists(yt.fake);
}, serverStartTimeoutMs);
afterAll(() => yt?.close());

/** One page through the SDK, for the list's own endpoint and body. */
async function requestPage(target: ListTarget, cursor: string | undefined) {
  const paging = { limit, ...(cursor === undefined ? {} : { cursor }) };
  switch (target.kind) {
    case "channel":
      return yt.server.client.POST("/transcripts/channel", {
        body: { channel: target.channel, tab: target.tab, sort: target.sort, ...paging },
      });
    case "playlist":
      return yt.server.client.POST("/transcripts/playlist", { body: { playlist: target.playlist, ...paging } });
    case "search":
      return yt.server.client.POST("/transcripts/search", {
        body: { query: target.query, type: target.type, ...paging },
      });
  }
}

/** Walks a list to the end, page by page, and answers what each page gave and cost. */
async function walk(list: RecordedList) {
  const pages: Array<{
    videoIds: string[];
    creditsSpent: number;
    balance: number | null;
    cursorLength: number;
    reads: InnertubeCall[];
  }> = [];
  let cursor: string | undefined;
  do {
    const before = innertubeCalls(yt.fake).length;
    const { data, error, response } = await requestPage(list.target, cursor);
    if (!data) throw new Error(`page ${pages.length + 1}: ${response.status} ${JSON.stringify(error)}`);
    pages.push({
      videoIds: data.data.videos.map((row) => ("videoId" in row ? row.videoId : row.id)),
      creditsSpent: data.usage.credits_spent,
      balance: data.usage.balance,
      cursorLength: data.data.next_cursor?.length ?? 0,
      reads: innertubeCalls(yt.fake).slice(before),
    });
    cursor = data.data.next_cursor ?? undefined;
    if (pages.length > 100) throw new Error("the walk does not end");
  } while (cursor !== undefined);
  return pages;
}

const operations = {
  channel: "POST /transcripts/channel",
  playlist: "POST /transcripts/playlist",
  search: "POST /transcripts/search",
} as const;

describe("200: walking each recorded list with limit 7", () => {
  for (const name of ["channel", "playlist", "search"] as const) {
    it(`returns every video of the recorded ${name} once, in order, in full pages, for 1 credit a page, reading each YouTube page once but to resume inside it`, async () => {
      const list = lists[name];
      const before = await yt.balance();
      const chargedBefore = await chargedTo(operations[name]);
      const pages = await walk(list);
      expect(pages.flatMap((page) => page.videoIds)).toEqual(list.videoIds);
      const total = list.videoIds.length;
      expect(pages.map((page) => page.videoIds.length)).toEqual(
        Array.from({ length: Math.ceil(total / limit) }, (_, index) => Math.min(limit, total - index * limit)),
      );
      expect(pages.map((page) => page.creditsSpent)).toEqual(pages.map(() => 1));
      // The channel's second token has 4192 characters; the cursor only names the stored position.
      expect(Math.max(...pages.map((page) => page.cursorLength))).toBeLessThan(256);
      expectEachUpstreamPageReadOnce(list, pages);
      expect(pages.at(-1)?.balance).toBe((before ?? 0) - pages.length);
      expect(await yt.balance()).toBe((before ?? 0) - pages.length);
      expect(await chargedTo(operations[name])).toEqual({
        credits: chargedBefore.credits + pages.length,
        requests: chargedBefore.requests + pages.length,
      });
    });
  }
});

/**
 * Every upstream page of the walk is read once, except that a request whose position points
 * inside a page (it does not start on a page boundary) first re-reads that page: the last one
 * the request before it read. A channel URL is resolved again with each read of its first page,
 * so `navigation/resolve_url` is left out of the count.
 */
function expectEachUpstreamPageReadOnce(list: RecordedList, pages: Array<{ reads: InnertubeCall[] }>): void {
  const pageRead = (call: InnertubeCall) => call.endpoint !== "navigation/resolve_url";
  const key = (call: InnertubeCall) =>
    JSON.stringify([call.endpoint, Object.entries(call.body).sort(([a], [b]) => a.localeCompare(b))]);
  const readsPerPage = pages.map((page) => page.reads.filter(pageRead).map(key));
  const upstreamPages = list.requests.filter(pageRead).map(key);
  expect([...new Set(readsPerPage.flat())]).toEqual(upstreamPages);
  const boundaries = new Set(list.pageSizes.map((_, index) => sum(list.pageSizes.slice(0, index + 1))));
  const rereads = pages.slice(1).filter((_, index) => !boundaries.has((index + 1) * limit)).length;
  const earlier = new Set<string>();
  for (const [index, reads] of readsPerPage.entries()) {
    const [first = "", ...later] = reads;
    if (earlier.has(first)) expect(first, `page ${index + 1}`).toBe(readsPerPage[index - 1]?.at(-1));
    for (const read of later) expect(earlier.has(read), `page ${index + 1}`).toBe(false);
    for (const read of reads) earlier.add(read);
  }
  expect(readsPerPage.flat()).toHaveLength(upstreamPages.length + rereads);
}

function sum(values: number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

/** The ledger's charges to an operation so far. */
async function chargedTo(operation: string): Promise<{ credits: number; requests: number }> {
  const report = await yt.server.platform.usage.report(yt.server.account.id, null);
  const row = report.endpoints.find((endpoint) => endpoint.endpoint === operation);
  return { credits: row?.credits_spent ?? 0, requests: row?.requests ?? 0 };
}
