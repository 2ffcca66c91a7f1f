import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UpstreamError, VideoUnavailableError } from "../../src/adapters/youtube/index.ts";
import { ApiError } from "../../src/errors.ts";
import { ListCursors } from "../../src/services/cursors/list-cursors.ts";
import {
  type ListPage,
  type ListPageRequest,
  maxUpstreamPagesPerRequest,
  VideoLists,
} from "../../src/services/lists/video-lists.ts";
import { ListingRegistry } from "../../src/sources/listing-registry.ts";
import type { ListingRequest } from "../../src/sources/listing-source.ts";
import { YoutubeListings } from "../../src/sources/youtube/youtube-listings.ts";
import type { Store } from "../../src/store/database.ts";
import { openTestStore } from "../support/store.ts";
import { idsOf, MemoryListSource, videoIds } from "./memory-list-source.ts";

const channel: ListingRequest = { kind: "channel", channel: "@memory", tab: "videos", sort: "newest" };

let store: Store;
let cursors: ListCursors;

beforeAll(async () => {
  store = await openTestStore();
  cursors = new ListCursors(store, () => new Date());
});
afterAll(() => store?.close());

/** One page of a list through the service, as a route asks for it. */
async function pageOf(
  source: MemoryListSource,
  request: Partial<ListPageRequest> & { limit: number },
): Promise<ListPage> {
  const lists = new VideoLists(new ListingRegistry([new YoutubeListings(source)]), cursors);
  return lists.read(await lists.prepare({ request: channel, cursor: "", ...request }));
}

/** Every page of a walk from the first (or from `from.cursor`) to the one whose cursor is null. */
async function walk(
  source: MemoryListSource,
  limit: number,
  from: { sinceVideoId?: string; cursor?: string } = {},
): Promise<ListPage[]> {
  const { sinceVideoId } = from;
  const pages: ListPage[] = [];
  let cursor = from.cursor ?? "";
  do {
    const page = await pageOf(source, { limit, cursor, ...(sinceVideoId === undefined ? {} : { sinceVideoId }) });
    pages.push(page);
    cursor = page.nextCursor ?? "";
    if (pages.length > 1000) throw new Error("the walk does not end");
  } while (cursor !== "");
  return pages;
}

/** The error a promise rejects with as an `ApiError`; fails the test otherwise. */
async function apiErrorOf(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => new Error("expected a failure"),
    (reason: unknown) => reason,
  );
  if (!(error instanceof ApiError)) throw error;
  return error;
}

describe("pages of exactly limit rows", () => {
  const cases: Array<{ sizes: number[]; limits: number[] }> = [
    { sizes: [30, 30, 13], limits: [1, 7, 50] },
    { sizes: [20, 20, 2], limits: [7, 50] },
    { sizes: [100, 50], limits: [7, 50] },
    { sizes: [3, 0, 0, 4, 1], limits: [1, 2, 7] },
  ];
  for (const { sizes, limits } of cases) {
    for (const limit of limits) {
      it(`walks upstream pages of ${sizes.join(", ")} with limit ${limit}: every video once, in order, full pages until the last`, async () => {
        const source = new MemoryListSource(sizes);
        const pages = await walk(source, limit);
        expect(idsOf(pages.flatMap((page) => page.rows))).toEqual(source.videoIds);
        const total = source.videoIds.length;
        const expectedSizes = Array.from({ length: Math.ceil(total / limit) }, (_, index) =>
          Math.min(limit, total - index * limit),
        );
        expect(pages.map((page) => page.rows.length)).toEqual(expectedSizes);
      });
    }
  }

  it("ends a list whose length is a multiple of limit on its last full page, without an empty page after it", async () => {
    const source = new MemoryListSource([30, 30]);
    const pages = await walk(source, 10);
    expect(pages.map((page) => page.rows.length)).toEqual([10, 10, 10, 10, 10, 10]);
    expect(pages.at(-1)?.nextCursor).toBeNull();
    expect(pages.slice(0, -1).every((page) => page.nextCursor !== null)).toBe(true);
  });

  it("answers an empty list with an empty page and no cursor", async () => {
    const page = await pageOf(new MemoryListSource([]), { limit: 5 });
    expect(page).toEqual({ rows: [], nextCursor: null });
  });

  it("gathers a page across YouTube's pages, reading only as many as it needs", async () => {
    const source = new MemoryListSource([30, 30, 13]);
    const first = await pageOf(source, { limit: 50 });
    expect(first.rows).toHaveLength(50);
    expect(source.calls.map((call) => call.continuation)).toEqual([null, "token-1"]);
    const second = await pageOf(source, { limit: 50, cursor: first.nextCursor ?? "" });
    expect(idsOf(second.rows)).toEqual(source.videoIds.slice(50));
    expect(source.calls.map((call) => call.continuation)).toEqual([null, "token-1", "token-1", "token-2"]);
  });

  it("accepts another limit on the next page: the cursor holds a position, not a page number", async () => {
    const source = new MemoryListSource([30, 30, 13]);
    const first = await pageOf(source, { limit: 7 });
    const second = await pageOf(source, { limit: 20, cursor: first.nextCursor ?? "" });
    expect(idsOf([...first.rows, ...second.rows])).toEqual(source.videoIds.slice(0, 27));
  });

  it("refuses with 503 upstream_error (5001) when YouTube keeps answering empty pages, after maxUpstreamPagesPerRequest reads", async () => {
    const source = new MemoryListSource(Array(maxUpstreamPagesPerRequest + 5).fill(0));
    const error = await apiErrorOf(pageOf(source, { limit: 5 }));
    expect({ status: error.status, code: error.code, number: error.number }).toEqual({
      status: 503,
      code: "upstream_error",
      number: 5001,
    });
    expect(source.calls).toHaveLength(maxUpstreamPagesPerRequest);
  });

  it("reads 4 upstream pages for a page of 50 starting at the last row of a page of 20, YouTube's smallest", async () => {
    const source = new MemoryListSource([20, 20, 20, 20, 20]);
    const first = await pageOf(source, { limit: 19 });
    const second = await pageOf(source, { limit: 50, cursor: first.nextCursor ?? "" });
    expect(idsOf(second.rows)).toEqual(source.videoIds.slice(19, 69));
    const reads = source.calls.slice(1).map((call) => call.continuation);
    expect(reads).toEqual([null, "token-1", "token-2", "token-3"]);
    expect(reads.length).toBeLessThan(maxUpstreamPagesPerRequest);
  });

  it("continues with the next upstream page when the page a position points into has fewer rows now", async () => {
    const longer = new MemoryListSource([30, 30]);
    const first = await pageOf(longer, { limit: 25 });
    const shrunk = new MemoryListSource([20, 30]);
    const second = await pageOf(shrunk, { limit: 5, cursor: first.nextCursor ?? "" });
    expect(idsOf(second.rows)).toEqual(shrunk.videoIds.slice(20, 25));
  });
});

describe("deep walks: positions stored server-side", () => {
  /** Channel tokens grow with depth (1664 characters on a recorded first page, 4192 on the second). */
  const growingTokens = (index: number) => `${index}`.padEnd(2000 * index, "x");

  /** Walks the list and answers, per request, the continuations it read upstream. */
  async function walkCountingReads(source: MemoryListSource, limit: number) {
    const pages: Array<{ page: ListPage; reads: Array<string | null> }> = [];
    let cursor = "";
    do {
      const before = source.calls.length;
      const page = await pageOf(source, { limit, cursor });
      pages.push({ page, reads: source.calls.slice(before).map((call) => call.continuation) });
      cursor = page.nextCursor ?? "";
      if (pages.length > 1000) throw new Error("the walk does not end");
    } while (cursor !== "");
    return pages;
  }

  const walks: Array<{ sizes: number[]; limit: number; rereads: number }> = [
    // 122 rows in 18 requests; no request starts on a page boundary, so each after the first re-reads one page.
    { sizes: [30, 30, 30, 30, 2], limit: 7, rereads: 17 },
    // Requests 4 and 7 start on the boundaries at rows 30 and 60, so they read a new page first.
    { sizes: [30, 30, 13], limit: 10, rereads: 5 },
    // Every request starts on a page boundary: no upstream page is read twice.
    { sizes: [20, 20, 20, 20, 20, 7], limit: 20, rereads: 0 },
  ];
  for (const { sizes, limit, rereads } of walks) {
    it(`walks pages of ${sizes.join(", ")} with limit ${limit} and tokens of up to ${2000 * (sizes.length - 1)} characters: every upstream page read once, ${rereads} requests re-reading the page their position points into`, async () => {
      const source = new MemoryListSource(sizes, { tokenOf: growingTokens });
      const pages = await walkCountingReads(source, limit);
      expect(idsOf(pages.flatMap(({ page }) => page.rows))).toEqual(source.videoIds);
      for (const { page } of pages) expect(page.nextCursor?.length ?? 0).toBeLessThan(256);

      const upstreamPages = [null, ...sizes.slice(1).map((_, index) => growingTokens(index + 1))];
      const firstReads = [...new Set(pages.flatMap(({ reads }) => reads))];
      expect(firstReads).toEqual(upstreamPages);
      const earlierReads = new Set<string | null>();
      let repeated = 0;
      for (const [index, { reads }] of pages.entries()) {
        // Within a request no page is read twice; only its first read may repeat an earlier
        // request's read, and then it is the page that request stopped inside: its last read.
        const [first = null, ...later] = reads;
        expect(new Set(reads).size, `request ${index + 1}`).toBe(reads.length);
        for (const read of later) expect(earlierReads.has(read), `request ${index + 1}`).toBe(false);
        if (earlierReads.has(first)) {
          expect(first, `request ${index + 1}`).toBe(pages[index - 1]?.reads.at(-1));
          repeated++;
        }
        for (const read of reads) earlierReads.add(read);
      }
      expect(repeated).toBe(rereads);
      expect(source.calls).toHaveLength(upstreamPages.length + rereads);
    });
  }
});

describe("since_video_id (docs/decisions.md rule 11)", () => {
  const ids = videoIds(73);
  const id = (index: number) => ids[index] ?? "";

  it("trims the page to the videos newer than the marker and ends the list", async () => {
    const page = await pageOf(new MemoryListSource([30, 30, 13]), { limit: 7, sinceVideoId: id(3) });
    expect(idsOf(page.rows)).toEqual(ids.slice(0, 3));
    expect(page.nextCursor).toBeNull();
  });

  it("answers an empty page when the marker is the newest video", async () => {
    const page = await pageOf(new MemoryListSource([30, 30, 13]), { limit: 7, sinceVideoId: id(0) });
    expect(page).toEqual({ rows: [], nextCursor: null });
  });

  it("returns the page untrimmed, with a cursor, when the marker is not on it", async () => {
    const page = await pageOf(new MemoryListSource([30, 30, 13]), { limit: 7, sinceVideoId: id(40) });
    expect(idsOf(page.rows)).toEqual(ids.slice(0, 7));
    expect(page.nextCursor).not.toBeNull();
  });

  it("finds the marker on a later page of the walk and stops there", async () => {
    const pages = await walk(new MemoryListSource([30, 30, 13]), 7, { sinceVideoId: id(33) });
    expect(pages.map((page) => page.rows.length)).toEqual([7, 7, 7, 7, 5]);
    expect(idsOf(pages.flatMap((page) => page.rows))).toEqual(ids.slice(0, 33));
  });

  it("finds the marker in the second YouTube page gathered into one page, without reading further", async () => {
    const source = new MemoryListSource([5, 5, 5]);
    const page = await pageOf(source, { limit: 10, sinceVideoId: id(6) });
    expect(idsOf(page.rows)).toEqual(ids.slice(0, 6));
    expect(page.nextCursor).toBeNull();
    expect(source.calls).toHaveLength(2);
  });

  it("accepts the marker as any YouTube video URL", async () => {
    for (const url of [
      `https://www.youtube.com/watch?v=${id(2)}&t=5`,
      `youtu.be/${id(2)}`,
      `https://m.youtube.com/shorts/${id(2)}`,
    ]) {
      const page = await pageOf(new MemoryListSource([30]), { limit: 7, sinceVideoId: url });
      expect(idsOf(page.rows), url).toEqual(ids.slice(0, 2));
    }
  });

  const allowed: Array<[string, ListingRequest]> = [
    ["the videos tab", channel],
    ["the shorts tab", { ...channel, tab: "shorts" }],
    ["the live tab", { ...channel, tab: "live" }],
    ["a playlist", { kind: "playlist", playlist: "PLmemorylist" }],
    ["a video search", { kind: "search", query: "zoo", type: "video", platform: "youtube" }],
  ];
  for (const [what, request] of allowed) {
    it(`is allowed with ${what}`, async () => {
      const page = await pageOf(new MemoryListSource([30]), { request, limit: 7, sinceVideoId: id(1) });
      expect(idsOf(page.rows)).toEqual(ids.slice(0, 1));
    });
  }

  const search = { kind: "search", query: "zoo", platform: "youtube" } as const;
  const refused: Array<[string, ListingRequest, string]> = [
    ["the popular order", { ...channel, sort: "popular" }, "not allowed with sort popular"],
    ["the oldest order", { ...channel, sort: "oldest" }, "not allowed with sort oldest"],
    ["a query inside the channel", { ...channel, query: "zoo" }, "not allowed with query"],
    ["a channel search", { ...search, type: "channel" }, "not allowed with type channel"],
    ["a playlist search", { ...search, type: "playlist" }, "not allowed with type playlist"],
  ];
  for (const [what, request, issue] of refused) {
    it(`is refused with ${what}: 400 invalid_request (1001) on /body/since_video_id, before any upstream call`, async () => {
      const source = new MemoryListSource([30]);
      const error = await apiErrorOf(pageOf(source, { request, limit: 7, sinceVideoId: id(1) }));
      expect({ status: error.status, code: error.code, number: error.number, extra: error.extra }).toEqual({
        status: 400,
        code: "invalid_request",
        number: 1001,
        extra: { issues: [{ path: "/body/since_video_id", message: issue }] },
      });
      expect(source.calls).toEqual([]);
    });
  }

  it("refuses a marker that names no YouTube video with 400 invalid_request on /body/since_video_id", async () => {
    const error = await apiErrorOf(
      pageOf(new MemoryListSource([30]), { limit: 7, sinceVideoId: "https://vimeo.com/1" }),
    );
    expect({ status: error.status, number: error.number }).toEqual({ status: 400, number: 1001 });
    expect(error.extra).toMatchObject({ issues: [{ path: "/body/since_video_id" }] });
  });
});

describe("cursors over the service", () => {
  it("refuses a cursor of another list with 400 invalid_cursor (1002) before any upstream call", async () => {
    const source = new MemoryListSource([30]);
    const first = await pageOf(source, { limit: 7 });
    const calls = source.calls.length;
    const error = await apiErrorOf(
      pageOf(source, { request: { ...channel, tab: "live" }, limit: 7, cursor: first.nextCursor ?? "" }),
    );
    expect({ status: error.status, code: error.code, number: error.number }).toEqual({
      status: 400,
      code: "invalid_cursor",
      number: 1002,
    });
    expect(source.calls).toHaveLength(calls);
  });
});

describe("a later upstream page fails", () => {
  const blocked = () => new UpstreamError("blocked", "bot check");

  it("answers the rows read before it, short of limit, with a cursor that reads the failed page again", async () => {
    const source = new MemoryListSource([30, 30, 13]).failAt("token-1", blocked());
    const first = await pageOf(source, { limit: 50 });
    expect(idsOf(first.rows)).toEqual(source.videoIds.slice(0, 30));
    const callsBefore = source.calls.length;
    const error = await apiErrorOf(pageOf(source, { limit: 50, cursor: first.nextCursor ?? "" }));
    expect({ status: error.status, code: error.code, number: error.number }).toEqual({
      status: 503,
      code: "upstream_error",
      number: 5001,
    });
    expect(source.calls.slice(callsBefore).map((call) => call.continuation)).toEqual(["token-1"]);
  });

  it("fails when no row was read before it: an empty page with a cursor would hide the failure", async () => {
    const first = await pageOf(new MemoryListSource([30, 30]), { limit: 25 });
    const shrunk = new MemoryListSource([20, 30]).failAt("token-1", blocked());
    const error = await apiErrorOf(pageOf(shrunk, { limit: 5, cursor: first.nextCursor ?? "" }));
    expect({ status: error.status, number: error.number }).toEqual({ status: 503, number: 5001 });
    expect(shrunk.calls.map((call) => call.continuation)).toEqual([null, "token-1"]);
  });

  it("resumes at the failed page once it answers: the walk yields every row once, in order", async () => {
    const failing = new MemoryListSource([30, 30, 13]).failAt("token-1", blocked());
    const first = await pageOf(failing, { limit: 50 });
    const recovered = new MemoryListSource([30, 30, 13]);
    const rest = await walk(recovered, 50, { cursor: first.nextCursor ?? "" });
    expect(idsOf([...first.rows, ...rest.flatMap((page) => page.rows)])).toEqual(recovered.videoIds);
  });
});

describe("adapter failures", () => {
  const failures: Array<[string, Error, { status: number; code: string; number: number }]> = [
    ["a timeout", new UpstreamError("timeout", "no answer"), { status: 503, code: "timeout", number: 5002 }],
    ["a block", new UpstreamError("blocked", "bot check"), { status: 503, code: "upstream_error", number: 5001 }],
    ["an unreadable page", new UpstreamError("unparseable", "?"), { status: 503, code: "parse_error", number: 5005 }],
    [
      "a private playlist",
      new VideoUnavailableError("private", "private"),
      { status: 422, code: "private", number: 4001 },
    ],
  ];
  for (const [what, failure, expected] of failures) {
    it(`maps ${what} to ${expected.status} ${expected.code} (${expected.number})`, async () => {
      const error = await apiErrorOf(pageOf(new MemoryListSource([30]).failWith(failure), { limit: 7 }));
      expect({ status: error.status, code: error.code, number: error.number }).toEqual(expected);
    });
  }
});
