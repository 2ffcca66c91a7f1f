import { FakeYoutube, fixture, fromFixture, newpipeRecording, newpipeRequest } from "@verbatim/testkit/fake-youtube";
import {
  assembledPlaylistFirstPage,
  innertubeCalls,
  rawListPage,
  recordedBody,
  registerRecordedLists,
} from "@verbatim/testkit/youtube-lists";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createYoutubeAdapter, type YoutubeAdapter } from "../../src/adapters/youtube/index.ts";
import { UpstreamError, VideoUnavailableError } from "../../src/adapters/youtube/upstream-errors.ts";
import type { ListRow, ListTarget } from "../../src/adapters/youtube/video-lists.ts";

const now = new Date("2026-05-21T12:00:00Z");
const day = 86_400_000;
const daysAgo = (days: number) => new Date(now.getTime() - days * day).toISOString();

const ccId = "UCTwECeGqMZee77BjdoYtI2Q";
const videosTab = "EgZ2aWRlb3PyBgQKAjoA";
const tabs = "youtubechanneltabextractor";
const notAvailable = "youtubechannelextractor/notavailable";

let fake: FakeYoutube;
let youtube: YoutubeAdapter;

function adapter(): YoutubeAdapter {
  return createYoutubeAdapter({
    origin: fake.origin,
    attemptTimeoutMs: 400,
    budgetMs: 2_000,
    maxAttempts: 3,
    backoffBaseMs: 10,
    now: () => now,
  });
}

beforeAll(async () => {
  fake = await FakeYoutube.start();
  youtube = adapter();
});

afterAll(async () => {
  await fake?.close();
});

beforeEach(() => {
  fake.requests.length = 0;
});

interface Walk {
  rows: ListRow[];
  pageSizes: number[];
  /** The continuation of the last page fetched: null when the list ended. */
  continuation: string | null;
}

/** Follows continuations until the list ends or `maxPages` pages were read. */
async function walk(target: ListTarget, maxPages = 20, source = youtube): Promise<Walk> {
  const rows: ListRow[] = [];
  const pageSizes: number[] = [];
  let page = await source.lists.firstPage(target);
  for (;;) {
    rows.push(...page.rows);
    pageSizes.push(page.rows.length);
    if (!page.continuation || pageSizes.length === maxPages)
      return { rows, pageSizes, continuation: page.continuation };
    page = await source.lists.nextPage(target, page.continuation);
  }
}

function rowIds(rows: ListRow[]): string[] {
  return rows.map((row) => ("videoId" in row ? row.videoId : row.id));
}

function expectNoDuplicates(rows: ListRow[]): void {
  const ids = rowIds(rows);
  expect(new Set(ids).size, `duplicates in ${ids.join(",")}`).toBe(ids.length);
}

/** The failure a call rejects with. */
async function failure(call: Promise<unknown>): Promise<unknown> {
  return call.then(
    (value) => {
      throw new Error(`expected a failure, got ${JSON.stringify(value).slice(0, 200)}`);
    },
    (error: unknown) => error,
  );
}

/** The continuation token of the chip with this text on a recorded channel tab. */
function chipToken(recording: string, text: string): string {
  let token: string | undefined;
  const visit = (value: unknown): void => {
    if (token || value === null || typeof value !== "object") return;
    const chip = (value as { chipViewModel?: { text?: string; tapCommand?: unknown } }).chipViewModel;
    if (chip?.text === text) {
      token = (chip.tapCommand as { innertubeCommand: { continuationCommand: { token: string } } }).innertubeCommand
        .continuationCommand.token;
      return;
    }
    for (const child of Object.values(value)) visit(child);
  };
  visit(recordedBody(recording));
  if (!token) throw new Error(`no "${text}" chip in ${recording}`);
  return token;
}

const channel = (input: string, extra: Partial<Extract<ListTarget, { kind: "channel" }>> = {}): ListTarget => ({
  kind: "channel",
  channel: input,
  tab: "videos",
  sort: "newest",
  ...extra,
});

describe("channel tabs walk every recorded page", () => {
  it("lists the Videos tab of a /user/ address: 30 + 30 recorded, 2 authored, in YouTube's order", async () => {
    const { channel: list } = registerRecordedLists(fake);
    const { rows, pageSizes, continuation } = await walk(list.target);
    expect(pageSizes).toEqual([30, 30, 2]);
    expect(continuation).toBeNull();
    expect(rowIds(rows)).toEqual(list.videoIds);
    expect(rowIds(rows).slice(0, 1)).toEqual(["BD-LB23rRBE"]);
    expect(rowIds(rows)[29]).toBe("Wi5vPm56fzg");
    expect(rowIds(rows)[30]).toBe("CIFHx7_z3Vc");
    expect(rowIds(rows).at(-1)).toBe("authoredCC2");
    expectNoDuplicates(rows);
    expect(innertubeCalls(fake)).toEqual(list.requests);
  });

  it("maps a lockup row of a channel's own tab, which carries neither the channel name nor an owner", async () => {
    const { channel: list } = registerRecordedLists(fake);
    const { rows } = await walk(list.target);
    // Recorded: "ALA Core webinar series, part 2 - ...", badge "1:00:01", "117 views", "1 year ago".
    expect(rows[30]).toEqual({
      videoId: "CIFHx7_z3Vc",
      url: "https://www.youtube.com/watch?v=CIFHx7_z3Vc",
      thumbnailUrl: "https://i.ytimg.com/vi/CIFHx7_z3Vc/mqdefault.jpg",
      title: "ALA Core webinar series, part 2 - Deep Dive into Creative Commons Licensing",
      duration: 3601,
      channel: "Creative Commons",
      publishedAt: daysAgo(365),
      stats: { plays: 117 },
    });
    // Authored: "No views" is zero plays, "1:02:03" is 3723 s.
    expect(rows.at(-1)).toMatchObject({ duration: 3723, stats: { plays: 0 }, publishedAt: daysAgo(9 * 365) });
    for (const row of rows) expect(row).toMatchObject({ channel: "Creative Commons" });
  });

  it("lists the Shorts tab of a bare UC id: shorts lockups with title and views, no duration", async () => {
    const page1 = `${tabs}/shorts/generated_mock_2.json`;
    const page2 = `${tabs}/shorts/generated_mock_3.json`;
    fake.replayNewpipe(page1).replayNewpipe(page2);
    const lastToken = rawListPage(recordedBody(page2)).continuation ?? "";
    fake.innertube("browse", { continuation: lastToken }, fromFixture("authored/lists/doobydobap.shorts.page3.json"));

    const { rows, pageSizes, continuation } = await walk(channel("UCh8gHdtzO2tXd593_bjErWg", { tab: "shorts" }));

    expect(pageSizes).toEqual([48, 48, 2]);
    expect(continuation).toBeNull();
    expect(rowIds(rows)).toEqual([
      ...rawListPage(recordedBody(page1)).videoIds,
      ...rawListPage(recordedBody(page2)).videoIds,
      "authoredDB1",
      "authoredDB2",
    ]);
    expectNoDuplicates(rows);
    expect(rows[0]).toEqual({
      videoId: "l-X5WbDSH2o",
      url: "https://www.youtube.com/watch?v=l-X5WbDSH2o",
      thumbnailUrl: "https://i.ytimg.com/vi/l-X5WbDSH2o/mqdefault.jpg",
      title: "Packing lunch for my special roommate",
      duration: null,
      channel: "Doobydobap",
      publishedAt: null,
      stats: { plays: 895_000 },
    });
    expect(rows.at(-1)).toMatchObject({ videoId: "authoredDB2", stats: { plays: 1_500_000 } });
    expect(innertubeCalls(fake)[0]).toEqual({
      endpoint: "browse",
      body: { browseId: "UCh8gHdtzO2tXd593_bjErWg", params: "EgZzaG9ydHPyBgUKA5oBAA%3D%3D" },
    });
  });

  it("lists the Live tab of a /c/ address with a tab suffix to its recorded end (30 + 27)", async () => {
    for (const mock of [2, 3, 4]) fake.replayNewpipe(`${tabs}/livestreams/generated_mock_${mock}.json`);

    const { rows, pageSizes, continuation } = await walk(
      channel("https://www.youtube.com/c/JeffGeerling/streams", { tab: "live" }),
    );

    expect(pageSizes).toEqual([30, 27]);
    expect(continuation).toBeNull();
    expect(rowIds(rows)[0]).toBe("27J-wwgZydE");
    expect(rowIds(rows).at(-1)).toBe("EyI_OwhufNk");
    expectNoDuplicates(rows);
    expect(rows[0]).toEqual({
      videoId: "27J-wwgZydE",
      url: "https://www.youtube.com/watch?v=27J-wwgZydE",
      thumbnailUrl: "https://i.ytimg.com/vi/27J-wwgZydE/mqdefault.jpg",
      title: "The 1 Million Subscriber 'It was DNS' Livestream",
      duration: 50 * 60 + 53,
      channel: "Jeff Geerling",
      publishedAt: daysAgo(6 * 30),
      stats: { plays: 43_000 },
    });
    expect(innertubeCalls(fake).slice(0, 2)).toEqual([
      { endpoint: "navigation/resolve_url", body: { url: "https://www.youtube.com/c/JeffGeerling" } },
      { endpoint: "browse", body: { browseId: "UCR-DXc1voovS8nhAvccRZhg", params: "EgdzdHJlYW1z8gYECgJ6AA%3D%3D" } },
    ]);
  });

  it("re-reads the channel name for a continuation when this adapter never served the first page", async () => {
    const { channel: list } = registerRecordedLists(fake);
    const page2Token = rawListPage(recordedBody(`${tabs}/videos/generated_mock_3.json`)).continuation ?? "";
    fake.requests.length = 0;

    const page = await adapter().lists.nextPage(list.target, page2Token);

    expect(page.rows).toHaveLength(30);
    for (const row of page.rows) expect(row).toMatchObject({ channel: "Creative Commons" });
    expect(innertubeCalls(fake).map((call) => call.endpoint)).toEqual(["browse", "navigation/resolve_url", "browse"]);
  });
});

describe("channel references resolve to the UC id", () => {
  it.each([
    ["@TheDailyShow", "https://www.youtube.com/@TheDailyShow"],
    ["TheDailyShow", "https://www.youtube.com/@TheDailyShow"],
    ["https://www.youtube.com/@TheDailyShow", "https://www.youtube.com/@TheDailyShow"],
    ["youtube.com/@TheDailyShow/videos?si=abc", "https://www.youtube.com/@TheDailyShow"],
    ["https://m.youtube.com/@TheDailyShow/shorts", "https://www.youtube.com/@TheDailyShow"],
  ])("resolves %s through resolve_url %s", async (input, url) => {
    fake.replayNewpipe("youtubechannelhelper/generated_mock_2.json");
    fake.innertube(
      "browse",
      { browseId: "UCwWhs_6x42TyRM4Wstoq8HA" },
      newpipeRecording(`${tabs}/videos/generated_mock_3.json`),
    );

    await youtube.lists.firstPage(channel(input));

    expect(innertubeCalls(fake)).toEqual([
      { endpoint: "navigation/resolve_url", body: { url } },
      { endpoint: "browse", body: { browseId: "UCwWhs_6x42TyRM4Wstoq8HA", params: videosTab } },
    ]);
  });

  it.each([ccId, `https://www.youtube.com/channel/${ccId}`, `https://www.youtube.com/channel/${ccId}/videos?view=0`])(
    "browses %s directly, without resolve_url",
    async (input) => {
      fake.replayNewpipe(`${tabs}/videos/generated_mock_3.json`);
      const page = await youtube.lists.firstPage(channel(input));
      expect(page.rows).toHaveLength(30);
      expect(innertubeCalls(fake)).toEqual([{ endpoint: "browse", body: { browseId: ccId, params: videosTab } }]);
    },
  );
});

describe("channel sort and search (authored chip and search answers)", () => {
  const tabPage = `${tabs}/videos/generated_mock_3.json`;
  const recordedIds = () => rawListPage(recordedBody(tabPage)).videoIds;

  it("sorts by popularity through the tab's Popular chip, then follows the sorted list's continuation", async () => {
    fake.replayNewpipe(tabPage);
    const popularToken = chipToken(tabPage, "Popular");
    fake.innertube(
      "browse",
      { continuation: popularToken },
      fromFixture("authored/lists/creativecommons.videos.popular.json"),
    );
    fake.innertube(
      "browse",
      { continuation: "authored-creativecommons-popular-page-2" },
      fromFixture("authored/lists/creativecommons.videos.popular.page2.json"),
    );

    const { rows, pageSizes, continuation } = await walk(channel(ccId, { sort: "popular" }));

    const ids = recordedIds();
    expect(rowIds(rows)).toEqual([ids[5], ids[0], ids[12], ids[3], ids[29]]);
    expect(pageSizes).toEqual([3, 2]);
    expect(continuation).toBeNull();
    expect(rows.every((row) => "channel" in row && row.channel === "Creative Commons")).toBe(true);
    expect(innertubeCalls(fake)).toEqual([
      { endpoint: "browse", body: { browseId: ccId, params: videosTab } },
      { endpoint: "browse", body: { continuation: popularToken } },
      { endpoint: "browse", body: { continuation: "authored-creativecommons-popular-page-2" } },
    ]);
  });

  it("sorts oldest first through the Oldest chip", async () => {
    fake.replayNewpipe(tabPage);
    const oldestToken = chipToken(tabPage, "Oldest");
    fake.innertube(
      "browse",
      { continuation: oldestToken },
      fromFixture("authored/lists/creativecommons.videos.oldest.json"),
    );

    const page = await youtube.lists.firstPage(channel(ccId, { sort: "oldest" }));

    const ids = recordedIds();
    expect(rowIds(page.rows)).toEqual([ids[29], ids[28]]);
    expect(page.continuation).toBeNull();
  });

  it("refuses a sort the tab offers no chip for, rather than serving the default order", async () => {
    fake.innertube(
      "browse",
      { browseId: ccId, params: videosTab },
      fromFixture("authored/lists/creativecommons.search.license.json"),
    );
    const error = await failure(youtube.lists.firstPage(channel(ccId, { sort: "oldest" })));
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ kind: "unparseable" });
  });

  it("searches inside the channel with the search tab's params and the query", async () => {
    const searchPage = { browseId: ccId, params: "EgZzZWFyY2jyBgQKAloA", query: "license" };
    fake.innertube("browse", searchPage, fromFixture("authored/lists/creativecommons.search.license.json"));
    fake.innertube(
      "browse",
      { continuation: "authored-creativecommons-search-license-page-2" },
      fromFixture("authored/lists/creativecommons.search.license.page2.json"),
    );

    const { rows, pageSizes, continuation } = await walk(channel(ccId, { query: "license" }));

    expect(rowIds(rows)).toEqual(["authoredCS1", "authoredCS2", "authoredCS3"]);
    expect(pageSizes).toEqual([2, 1]);
    expect(continuation).toBeNull();
    expect(rows[0]).toEqual({
      videoId: "authoredCS1",
      url: "https://www.youtube.com/watch?v=authoredCS1",
      thumbnailUrl: "https://i.ytimg.com/vi/authoredCS1/mqdefault.jpg",
      title: "Authored: choosing a license",
      duration: 190,
      channel: "Creative Commons",
      publishedAt: daysAgo(60),
      stats: { plays: 2045 },
    });
    expect(innertubeCalls(fake)[0]).toEqual({ endpoint: "browse", body: searchPage });
  });
});

describe("playlists", () => {
  const playlistCase = "youtubeplaylistextractor/continuationss";

  it("walks a 150-video playlist: page 1 from the browse contents, page 2 (the last) by continuation", async () => {
    const { playlist: list } = registerRecordedLists(fake);
    const { rows, pageSizes, continuation } = await walk(list.target);
    expect(pageSizes).toEqual([100, 50]);
    expect(continuation).toBeNull();
    expect(rowIds(rows)).toEqual(list.videoIds);
    expect(rowIds(rows)[0]).toBe("u2ah9tWTkmk");
    expect(rowIds(rows).at(-1)).toBe("zUtTpuqV55U");
    expectNoDuplicates(rows);
    expect(innertubeCalls(fake)).toEqual(list.requests);
    // Each playlist row names its own uploader; "266M views • 11 months ago".
    expect(rows[0]).toEqual({
      videoId: "u2ah9tWTkmk",
      url: "https://www.youtube.com/watch?v=u2ah9tWTkmk",
      thumbnailUrl: "https://i.ytimg.com/vi/u2ah9tWTkmk/mqdefault.jpg",
      title: "Alex Warren - Ordinary (Official Video)",
      duration: 187,
      channel: "Alex Warren",
      publishedAt: daysAgo(330),
      stats: { plays: 266_000_000 },
    });
  });

  it.each([
    "PLXJg25X-OulsVsnvZ7RVtSDW-id9_RzAO",
    "https://www.youtube.com/watch?v=UKwSQSFN4Nw&list=PLXJg25X-OulsVsnvZ7RVtSDW-id9_RzAO&index=1",
    "youtube.com/playlist?list=PLXJg25X-OulsVsnvZ7RVtSDW-id9_RzAO",
  ])("reads a one-page playlist (17 videos, no continuation) from %s", async (input) => {
    const first = assembledPlaylistFirstPage(
      `${playlistCase}/generated_mock_5.json`,
      `${playlistCase}/generated_mock_6.json`,
    );
    fake.innertube("browse", { browseId: "VLPLXJg25X-OulsVsnvZ7RVtSDW-id9_RzAO" }, { body: JSON.stringify(first) });

    const page = await youtube.lists.firstPage({ kind: "playlist", playlist: input });

    expect(page.rows).toHaveLength(17);
    expect(page.continuation).toBeNull();
    expect(rowIds(page.rows)).toEqual(rawListPage(recordedBody(`${playlistCase}/generated_mock_6.json`)).videoIds);
  });

  it("reads page 1 when YouTube sends it as a reload command beside an empty tab", async () => {
    fake.innertube(
      "browse",
      { browseId: "VLPLoumn5BIsUDeGF1vy5Nylf_RJKn5aL_nr" },
      newpipeRecording(`${playlistCase}/generated_mock_3.json`),
    );
    const page = await youtube.lists.firstPage({ kind: "playlist", playlist: "PLoumn5BIsUDeGF1vy5Nylf_RJKn5aL_nr" });
    expect(page.rows).toHaveLength(100);
    expect(page.continuation).toBe(rawListPage(recordedBody(`${playlistCase}/generated_mock_3.json`)).continuation);
  });
});

describe("search", () => {
  const searchCase = "search/youtubesearchextractor";

  it("walks video results, skipping the shelves between them", async () => {
    const { search: list } = registerRecordedLists(fake);
    const { rows, pageSizes, continuation } = await walk(list.target);
    expect(pageSizes).toEqual([20, 20, 2]);
    expect(continuation).toBeNull();
    expect(rowIds(rows)).toEqual(list.videoIds);
    expect(rowIds(rows)[0]).toBe("Z8KYabgkMbw");
    expect(rowIds(rows)[39]).toBe("ezYffvVRjG4");
    expectNoDuplicates(rows);
    expect(innertubeCalls(fake)).toEqual(list.requests);
    expect(rows[0]).toEqual({
      videoId: "Z8KYabgkMbw",
      url: "https://www.youtube.com/watch?v=Z8KYabgkMbw",
      thumbnailUrl: "https://i.ytimg.com/vi/Z8KYabgkMbw/mqdefault.jpg",
      title: "Blind Test TOUT GENRE | 140 extraits",
      duration: 2840,
      channel: "Blind Test & Chill",
      publishedAt: daysAgo(9 * 30),
      stats: { plays: 390_201 },
    });
  });

  it("ends on the recorded last page of a query with few results", async () => {
    fake.replayNewpipe(`${searchCase}/randomquerynomorepages/generated_mock_2.json`, {
      query: "UCO6AK",
      params: "EgIQAQ%3D%3D",
    });
    fake.replayNewpipe(`${searchCase}/randomquerynomorepages/generated_mock_3.json`);

    const { rows, pageSizes, continuation } = await walk({ kind: "search", query: "UCO6AK", type: "video" });

    expect(pageSizes).toEqual([1, 0]);
    expect(continuation).toBeNull();
    expect(rowIds(rows)).toEqual(["MkPQ9bXNjkM"]);
  });

  it("returns channel rows for type channel, with the handle and subscribers YouTube shows in swapped fields", async () => {
    fake.replayNewpipe(`${searchCase}/channel/generated_mock_2.json`, { query: "test", params: "EgIQAg%3D%3D" });
    fake.replayNewpipe(`${searchCase}/channel/generated_mock_3.json`);

    const { rows, pageSizes, continuation } = await walk({ kind: "search", query: "test", type: "channel" }, 2);

    expect(pageSizes).toEqual([20, 20]);
    expect(continuation).not.toBeNull();
    expectNoDuplicates(rows);
    expect(rows.every((row) => "kind" in row && row.kind === "channel")).toBe(true);
    expect(rows[0]).toEqual({
      kind: "channel",
      id: "UCZRcA_nO3Kt-SOml2mY8D9g",
      url: "https://www.youtube.com/channel/UCZRcA_nO3Kt-SOml2mY8D9g",
      title: "test",
      handle: "@tutorialismic",
      subscribers: 234_000,
      thumbnail_url: expect.stringMatching(/^https:\/\/yt3\.ggpht\.com\//),
    });
  });

  it("returns playlist rows for type playlist, podcasts included", async () => {
    fake.replayNewpipe(`${searchCase}/playlists/generated_mock_2.json`, { query: "test", params: "EgIQAw%3D%3D" });
    fake.replayNewpipe(`${searchCase}/playlists/generated_mock_3.json`);

    const { rows, pageSizes } = await walk({ kind: "search", query: "test", type: "playlist" }, 2);

    expect(pageSizes).toEqual([20, 25]);
    // YouTube repeats 5 page-1 results on page 2; the adapter passes both pages on as served.
    expect(rowIds(rows)).toEqual([
      ...rawListPage(recordedBody(`${searchCase}/playlists/generated_mock_2.json`)).videoIds,
      ...rawListPage(recordedBody(`${searchCase}/playlists/generated_mock_3.json`)).videoIds,
    ]);
    expectNoDuplicates(rows.slice(0, 20));
    expect(rows.every((row) => "kind" in row && row.kind === "playlist")).toBe(true);
    expect(rows[0]).toEqual({
      kind: "playlist",
      id: "PLAD454F0807B6CB80",
      url: "https://www.youtube.com/playlist?list=PLAD454F0807B6CB80",
      title: "Tests du grenier",
      channel: "Joueur Du Grenier",
      video_count: 102,
      thumbnail_url: expect.stringMatching(/^https:\/\/i\.ytimg\.com\//),
    });
  });
});

describe("failures", () => {
  it.each([
    ["UCoaO4U_p7G7AwalqSbGCZOA", 2, /removed because it violated/],
    ["UCTGjY2I-ZUGnwVoWAGRd7XQ", 3, /terminated/],
    ["UCAUc4iz6edWerIjlnL8OSSw", 4, /does not exist/],
  ])("a removed, terminated or missing channel (%s) is unavailable", async (channelId, mock, message) => {
    fake.replayNewpipe(`${notAvailable}/generated_mock_${mock}.json`);
    const error = await failure(youtube.lists.firstPage(channel(channelId)));
    expect(error).toBeInstanceOf(VideoUnavailableError);
    expect(error).toMatchObject({ reason: "unavailable", message });
  });

  it("a channel id YouTube rejects with 400 INVALID_ARGUMENT is unavailable", async () => {
    fake.innertube(
      "browse",
      { browseId: "UC0000000000000000000000" },
      newpipeRecording(`${notAvailable}/generated_mock_8.json`),
    );
    const error = await failure(youtube.lists.firstPage(channel("UC0000000000000000000000")));
    expect(error).toMatchObject({ name: "VideoUnavailableError", reason: "unavailable" });
  });

  it("a handle resolve_url answers 404 for is unavailable", async () => {
    fake.replayNewpipe("youtubechannelhelper/generated_mock_6.json");
    const error = await failure(youtube.lists.firstPage(channel("@nonExistingHandleThatWillNeverExist15464")));
    expect(error).toMatchObject({ name: "VideoUnavailableError", reason: "unavailable" });
    expect(innertubeCalls(fake)).toEqual([
      {
        endpoint: "navigation/resolve_url",
        body: { url: "https://www.youtube.com/@nonExistingHandleThatWillNeverExist15464" },
      },
    ]);
  });

  it("an age-gated channel is age_restricted", async () => {
    fake.replayNewpipe("youtubechannelextractor/agerestrictedchannel/generated_mock_2.json");
    const error = await failure(youtube.lists.firstPage(channel("UCbfnHqxXs_K3kvaH-WlNlig")));
    expect(error).toMatchObject({ name: "VideoUnavailableError", reason: "age_restricted" });
  });

  it("input that names no channel or playlist is a caller's bug, not a missing list, and calls no YouTube", async () => {
    for (const target of [
      channel("https://example.com/@someone"),
      channel("https://www.youtube.com/watch?v=dQw4w9WgXcQ"),
      { kind: "playlist", playlist: "https://www.youtube.com/watch?v=dQw4w9WgXcQ" } as const,
    ]) {
      const error = await failure(youtube.lists.firstPage(target));
      expect(error).not.toBeInstanceOf(VideoUnavailableError);
      expect(error).toMatchObject({ message: expect.stringMatching(/should have refused it/) });
    }
    expect(fake.requests).toEqual([]);
  });

  it.each([
    ["VLINVALID_ID", "INVALID_ID", 2, /unviewable/],
    ["VLPL11111111111111111111111111111111", "PL11111111111111111111111111111111", 3, /does not exist/],
  ])("the recorded alert of playlist %s is unavailable", async (browseId, playlist, mock, message) => {
    fake.replayNewpipe(`youtubeplaylistextractor/notavailable/generated_mock_${mock}.json`, { browseId });
    const error = await failure(youtube.lists.firstPage({ kind: "playlist", playlist }));
    expect(error).toMatchObject({ name: "VideoUnavailableError", reason: "unavailable", message });
  });

  it("a private playlist (authored alert) is private", async () => {
    fake.innertube(
      "browse",
      { browseId: "VLPLprivateprivateprivateprivate00" },
      fromFixture("authored/lists/playlist.private.json"),
    );
    const error = await failure(
      youtube.lists.firstPage({ kind: "playlist", playlist: "PLprivateprivateprivateprivate00" }),
    );
    expect(error).toMatchObject({ name: "VideoUnavailableError", reason: "private" });
  });

  it("429 on a continuation is blocked, asked once", async () => {
    fake.innertube(
      "browse",
      { continuation: "throttled" },
      {
        status: 429,
        body: fixture("youtube-transcript-api/youtube_too_many_requests.html.static"),
        contentType: "text/html",
      },
    );
    const error = await failure(youtube.lists.nextPage(channel(ccId), "throttled"));
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ kind: "blocked", status: 429 });
    expect(
      fake.requestsTo("/youtubei/v1/browse").filter((request) => request.body?.continuation === "throttled"),
    ).toHaveLength(1);
  });

  it("a consent page instead of search results is blocked", async () => {
    fake.innertube(
      "search",
      { query: "consent" },
      { body: fixture("youtube-transcript-api/youtube_consent_page.html.static"), contentType: "text/html" },
    );
    const error = await failure(youtube.lists.firstPage({ kind: "search", query: "consent", type: "video" }));
    expect(error).toMatchObject({ name: "UpstreamError", kind: "blocked" });
  });

  it("503 on every attempt fails after the retries", async () => {
    fake.innertube("search", { query: "unlucky" }, { status: 503, body: "{}" });
    const error = await failure(youtube.lists.firstPage({ kind: "search", query: "unlucky", type: "video" }));
    expect(error).toMatchObject({ name: "UpstreamError", kind: "failed", status: 503 });
    expect(fake.requestsTo("/youtubei/v1/search")).toHaveLength(3);
  });

  it("one 500 is retried and the page still arrives", async () => {
    const recording = "search/youtubesearchextractor/videos/generated_mock_3.json";
    const token = String(newpipeRequest(recording).body.continuation);
    fake.replayNewpipe(recording);
    fake.innertube("search", { continuation: token }, { status: 500, body: "{}" }, 1);

    const page = await youtube.lists.nextPage({ kind: "search", query: "test", type: "video" }, token);

    expect(page.rows).toHaveLength(20);
    expect(fake.requestsTo("/youtubei/v1/search")).toHaveLength(2);
  });

  it("a page that never comes is a timeout", async () => {
    fake.innertube("browse", { continuation: "hangs" }, { hang: true });
    const error = await failure(youtube.lists.nextPage({ kind: "playlist", playlist: "PLx" }, "hangs"));
    expect(error).toMatchObject({ name: "UpstreamError", kind: "timeout" });
  });

  it("an answer that is not JSON is unparseable", async () => {
    fake.innertube("browse", { continuation: "garbled" }, { body: "{not json", contentType: "application/json" });
    const error = await failure(youtube.lists.nextPage({ kind: "playlist", playlist: "PLx" }, "garbled"));
    expect(error).toMatchObject({ name: "UpstreamError", kind: "unparseable" });
  });
});
