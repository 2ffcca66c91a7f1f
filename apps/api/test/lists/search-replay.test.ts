import { rawListPage, recordedBody } from "@verbatim/testkit/youtube-lists";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serverStartTimeoutMs, startYoutubeServer, type YoutubeTestServer } from "../support/youtube-server.ts";

// Issue 32: the recorded search "test" (type video), replayed as NewPipe recorded it and
// nothing more, paged over HTTP until the replay runs out. Its two pages name 49 distinct
// videos but hold 40 results; the replay has no answer for the continuation that ends page 2
// (see the `videos` search note in the fixture's SOURCE.md).

const recording = "search/youtubesearchextractor/videos";
const page1 = `${recording}/generated_mock_2.json`;
const page2 = `${recording}/generated_mock_3.json`;
/** youtubei.js sends YouTube's plain "Videos" filter where NewPipe also set field 30. */
const youtubeiVideoFilter = { query: "test", params: "EgIQAQ%3D%3D" };

const pages = [recordedBody(page1), recordedBody(page2)];
/** The results of both pages in YouTube's order, read from the raw JSON, not by the adapter. */
const resultIds = pages.flatMap((page) => rawListPage(page).videoIds);
/** The continuation that ends page 2, whose answer was never recorded. */
const unrecordedContinuation = rawListPage(pages[1]).continuation;

let yt: YoutubeTestServer;

beforeAll(async () => {
  yt = await startYoutubeServer({ credits: 1000 });
  yt.fake.replayNewpipe(page1, youtubeiVideoFilter).replayNewpipe(page2);
}, serverStartTimeoutMs);
afterAll(() => yt?.close());

/**
 * Pages the search from the start until a page has no cursor or a request fails, as a client
 * does; without `limit`, at the default of 5.
 */
async function pageUntilTheReplayRunsOut(limit: number | undefined) {
  const videoIds: string[] = [];
  const balanceBefore = await yt.balance();
  let pagesAnswered = 0;
  let cursor: string | undefined;
  let failure: { status: number; body: unknown } | null = null;
  do {
    const { data, error, response } = await yt.server.client.POST("/transcripts/search", {
      body: {
        query: "test",
        type: "video",
        ...(limit === undefined ? {} : { limit }),
        ...(cursor === undefined ? {} : { cursor }),
      },
    });
    if (!data) {
      failure = { status: response.status, body: error };
      break;
    }
    pagesAnswered++;
    videoIds.push(...data.data.videos.map((row) => ("videoId" in row ? row.videoId : row.id)));
    cursor = data.data.next_cursor ?? undefined;
    if (pagesAnswered > resultIds.length) throw new Error("the walk does not end");
  } while (cursor !== undefined);
  const credits = (balanceBefore ?? 0) - ((await yt.balance()) ?? 0);
  return { videoIds, pagesAnswered, credits, failure };
}

describe("200 for every result of the recorded search, then 503 upstream_error where the replay ends", () => {
  it("names 49 distinct videos in its two pages: its 40 results and 9 only in YouTube's recommendation shelves", () => {
    const everyId = new Set(pages.flatMap((page) => videoIdsUnder(page, () => true)));
    const shelfIds = new Set(pages.flatMap((page) => videoIdsUnder(page, (key) => key === "shelfRenderer")));
    expect(everyId.size).toBe(49);
    expect(new Set(resultIds).size).toBe(40);
    expect(resultIds).toHaveLength(40);
    const notResults = [...everyId].filter((id) => !resultIds.includes(id));
    expect(notResults).toHaveLength(9);
    expect(notResults.every((id) => shelfIds.has(id))).toBe(true);
  });

  for (const limit of [undefined, 7, 50]) {
    it(`returns each of the 40 results exactly once, in order, with ${limit === undefined ? "the default limit" : `limit ${limit}`}, then 503 upstream_error (5001) at the unrecorded page, charging 1 credit a page`, async () => {
      const walk = await pageUntilTheReplayRunsOut(limit);
      expect(walk.videoIds).toEqual(resultIds);
      expect(walk.failure?.status, JSON.stringify(walk.failure?.body)).toBe(503);
      expect(walk.failure?.body).toMatchObject({ error: { code: "upstream_error", number: 5001 } });
      const lastRead = yt.fake.requestsTo("/youtubei/v1/search").at(-1);
      expect(lastRead?.body?.continuation).toBe(unrecordedContinuation);
      expect(walk.credits).toBe(walk.pagesAnswered);
    });
  }
});

/** The `videoId`s of video renderers anywhere in a raw answer, or only under a key `inside` accepts. */
function videoIdsUnder(value: unknown, inside: (key: string) => boolean, entered = false): string[] {
  if (Array.isArray(value)) return value.flatMap((item) => videoIdsUnder(item, inside, entered));
  if (value === null || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([key, child]) => {
    const within = entered || inside(key);
    if (key === "videoRenderer" && within) {
      const id = (child as { videoId?: unknown }).videoId;
      return typeof id === "string" ? [id] : [];
    }
    return videoIdsUnder(child, inside, within);
  });
}
