import { type FakeYoutube, fixture, type LoggedRequest, newpipeRecording, newpipeRequest } from "./fake-youtube.ts";

/**
 * Recorded YouTube lists a test can walk to the end through a `FakeYoutube`, with what the
 * walk must yield. The expected ids are read from the raw recorded JSON by `rawListPage`
 * (not by the adapter's parser), so a test comparing them with the adapter's rows can fail.
 *
 * @example
 * const fake = await FakeYoutube.start();
 * const lists = registerRecordedLists(fake);
 * const app = createYoutubeAdapter({ origin: fake.origin });
 * // walk app.lists.firstPage(lists.channel.target), then nextPage(...) until continuation is null;
 * // the rows' videoIds equal lists.channel.videoIds, and innertubeCalls(fake) equals lists.channel.requests.
 */
export interface RecordedList {
  /** What to ask for: the adapter's target, with the same values the HTTP body takes. */
  target: RecordedListTarget;
  /** Every video id of the list, in YouTube's order, first page to last. */
  videoIds: string[];
  /** How many videos each upstream page holds, in order (YouTube's own page sizes). */
  pageSizes: number[];
  /** The InnerTube calls a full walk makes, in order, as `innertubeCalls` reports them. */
  requests: InnertubeCall[];
}

/**
 * A list as the API's YouTube adapter takes it (its `ListTarget`), with the values the HTTP
 * body takes; the API's tests pass it to the adapter, which holds the two shapes together.
 */
export type RecordedListTarget =
  | { kind: "channel"; channel: string; tab: "videos"; sort: "newest" }
  | { kind: "playlist"; playlist: string }
  | { kind: "search"; query: string; type: "video" };

/** One InnerTube call: its endpoint and the body fields that tell calls apart (never `context`). */
export interface InnertubeCall {
  endpoint: string;
  body: Record<string, string>;
}

export interface RecordedLists {
  /**
   * Creative Commons' Videos tab, asked as `https://www.youtube.com/user/creativecommons`:
   * resolve_url, two recorded pages (30 + 30) and an authored last page (2), 62 videos.
   */
  channel: RecordedList;
  /**
   * Playlist PLoumn5BIsUDeGF1vy5Nylf_RJKn5aL_nr: a first page assembled from the recorded
   * header and page 1 (100), then the recorded last page (50), 150 videos.
   */
  playlist: RecordedList;
  /** Search "test", type video: two recorded pages (20 + 20, shelves skipped) and an authored last page (2), 42 videos. */
  search: RecordedList;
}

const channelTab = "youtubechanneltabextractor/videos";
const playlistCase = "youtubeplaylistextractor/continuationss";
const searchCase = "search/youtubesearchextractor/videos";

/** Registers the three recorded lists on the fake and returns what walking each must give. */
export function registerRecordedLists(fake: FakeYoutube): RecordedLists {
  return {
    channel: registerCreativeCommonsVideos(fake),
    playlist: registerRecordedPlaylist(fake),
    search: registerRecordedSearch(fake),
  };
}

function registerCreativeCommonsVideos(fake: FakeYoutube): RecordedList {
  const resolve = `${channelTab}/generated_mock_2.json`;
  const page1 = `${channelTab}/generated_mock_3.json`;
  const page2 = `${channelTab}/generated_mock_4.json`;
  const page3 = "authored/lists/creativecommons.videos.page3.json";
  fake.replayNewpipe(resolve).replayNewpipe(page1).replayNewpipe(page2);
  const page2Token = requiredToken(recordedBody(page2), page2);
  fake.innertube("browse", { continuation: page2Token }, { body: fixture(page3) });
  const pages = [recordedBody(page1), recordedBody(page2), JSON.parse(fixture(page3)) as unknown];
  return {
    target: {
      kind: "channel",
      channel: "https://www.youtube.com/user/creativecommons",
      tab: "videos",
      sort: "newest",
    },
    ...expectedWalk(pages),
    requests: [
      recordedCall(resolve),
      recordedCall(page1),
      recordedCall(page2),
      { endpoint: "browse", body: { continuation: page2Token } },
    ],
  };
}

function registerRecordedPlaylist(fake: FakeYoutube): RecordedList {
  const playlistId = "PLoumn5BIsUDeGF1vy5Nylf_RJKn5aL_nr";
  const first = assembledPlaylistFirstPage(
    `${playlistCase}/generated_mock_2.json`,
    `${playlistCase}/generated_mock_3.json`,
  );
  const last = `${playlistCase}/generated_mock_4.json`;
  fake.innertube("browse", { browseId: `VL${playlistId}` }, { body: JSON.stringify(first) }).replayNewpipe(last);
  return {
    target: { kind: "playlist", playlist: `https://www.youtube.com/playlist?list=${playlistId}` },
    ...expectedWalk([first, recordedBody(last)]),
    requests: [{ endpoint: "browse", body: { browseId: `VL${playlistId}` } }, recordedCall(last)],
  };
}

function registerRecordedSearch(fake: FakeYoutube): RecordedList {
  const page1 = `${searchCase}/generated_mock_2.json`;
  const page2 = `${searchCase}/generated_mock_3.json`;
  const page3 = "authored/lists/search.test.videos.page3.json";
  // NewPipe's video filter also sets field 30; youtubei.js sends YouTube's plain "Videos" filter.
  const youtubeiVideoFilter = { query: "test", params: "EgIQAQ%3D%3D" };
  fake.replayNewpipe(page1, youtubeiVideoFilter).replayNewpipe(page2);
  const page2Token = requiredToken(recordedBody(page2), page2);
  fake.innertube("search", { continuation: page2Token }, { body: fixture(page3) });
  return {
    target: { kind: "search", query: "test", type: "video" },
    ...expectedWalk([recordedBody(page1), recordedBody(page2), JSON.parse(fixture(page3)) as unknown]),
    requests: [
      { endpoint: "search", body: youtubeiVideoFilter },
      recordedCall(page2),
      { endpoint: "search", body: { continuation: page2Token } },
    ],
  };
}

/** The InnerTube calls the fake received, in order, reduced to what `RecordedList.requests` holds. */
export function innertubeCalls(fake: FakeYoutube): InnertubeCall[] {
  return fake.requests
    .filter((request) => request.path.startsWith("/youtubei/v1/"))
    .map((request) => ({ endpoint: request.path.replace("/youtubei/v1/", ""), body: identifyingFields(request) }));
}

function identifyingFields(request: LoggedRequest): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const name of ["browseId", "params", "continuation", "query", "url", "videoId"]) {
    const value = request.body?.[name];
    if (typeof value === "string") fields[name] = value;
  }
  return fields;
}

/**
 * youtubei.js reads page 1 of a playlist from the `contents` of `browse {browseId: "VL<id>"}`.
 * NewPipe recorded that call with `$fields=sidebar,header,microformat,alerts` (the header
 * only) and fetched page 1 through a continuation, so the answer is assembled here in the
 * documented WEB shape: the recorded header, sidebar and microformat, and the recorded page-1
 * items in `twoColumnBrowseResultsRenderer > tab > sectionList > itemSection > playlistVideoListRenderer`.
 */
export function assembledPlaylistFirstPage(headerRecording: string, page1Recording: string): Record<string, unknown> {
  const header = recordedBody(headerRecording) as Record<string, unknown>;
  const page1 = recordedBody(page1Recording) as {
    onResponseReceivedActions: Array<{
      reloadContinuationItemsCommand?: { targetId: string; continuationItems: unknown[] };
    }>;
  };
  const reload = page1.onResponseReceivedActions.find(
    (action) => action.reloadContinuationItemsCommand,
  )?.reloadContinuationItemsCommand;
  if (!reload) throw new Error(`${page1Recording} holds no page-1 items`);
  const playlistVideoListRenderer = {
    contents: reload.continuationItems,
    playlistId: reload.targetId,
    isEditable: false,
    canReorder: false,
    targetId: reload.targetId,
  };
  return {
    ...header,
    contents: {
      twoColumnBrowseResultsRenderer: {
        tabs: [
          {
            tabRenderer: {
              selected: true,
              content: {
                sectionListRenderer: {
                  contents: [{ itemSectionRenderer: { contents: [{ playlistVideoListRenderer }] } }],
                },
              },
            },
          },
        ],
      },
    },
  };
}

/** A recorded answer body, parsed. */
export function recordedBody(path: string): unknown {
  return JSON.parse(newpipeRecording(path).body) as unknown;
}

function recordedCall(path: string): InnertubeCall {
  const { endpoint, body } = newpipeRequest(path);
  return {
    endpoint,
    body: identifyingFields({ method: "POST", path: "", query: new URLSearchParams(), body, headers: {} }),
  };
}

function expectedWalk(pages: unknown[]): { videoIds: string[]; pageSizes: number[] } {
  const pageIds = pages.map((page) => rawListPage(page).videoIds);
  return { videoIds: pageIds.flat(), pageSizes: pageIds.map((ids) => ids.length) };
}

function requiredToken(page: unknown, path: string): string {
  const token = rawListPage(page).continuation;
  if (!token) throw new Error(`${path} ends without a continuation`);
  return token;
}

/**
 * The video ids and the continuation token of a raw InnerTube list page, read straight from
 * the JSON: the items of the rich grid, section list, playlist list or continuation action,
 * entering item sections but not shelves (`shelfRenderer`, `reelShelfRenderer` are not list items).
 */
export function rawListPage(page: unknown): { videoIds: string[]; continuation: string | null } {
  const videoIds: string[] = [];
  let continuation: string | null = null;
  const visitItem = (item: Json): void => {
    const content = (item.richItemRenderer as Json | undefined)?.content as Json | undefined;
    const node = content ?? item;
    const section = node.itemSectionRenderer as Json | undefined;
    if (section) {
      for (const child of (section.contents as Json[] | undefined) ?? []) visitItem(child);
      return;
    }
    const id =
      (node.lockupViewModel as Json | undefined)?.contentId ??
      (node.videoRenderer as Json | undefined)?.videoId ??
      (node.playlistVideoRenderer as Json | undefined)?.videoId ??
      dig(node, ["shortsLockupViewModel", "onTap", "innertubeCommand", "reelWatchEndpoint", "videoId"]);
    if (typeof id === "string") videoIds.push(id);
    const token = dig(node, ["continuationItemRenderer", "continuationEndpoint", "continuationCommand", "token"]);
    if (typeof token === "string") continuation = token;
  };
  for (const items of rawItemArrays(page as Json)) for (const item of items) visitItem(item);
  return { videoIds, continuation };
}

type Json = Record<string, unknown>;

function rawItemArrays(page: Json): Json[][] {
  const arrays: Json[][] = [];
  const tabs = (dig(page, ["contents", "twoColumnBrowseResultsRenderer", "tabs"]) as Json[] | undefined) ?? [];
  const selected = tabs
    .map((tab) => (tab.tabRenderer ?? tab.expandableTabRenderer) as Json)
    .find((tab) => tab?.selected);
  const tabContent = selected?.content as Json | undefined;
  const grid = dig(tabContent, ["richGridRenderer", "contents"]);
  if (Array.isArray(grid)) arrays.push(grid as Json[]);
  const sections = dig(tabContent, ["sectionListRenderer", "contents"]) as Json[] | undefined;
  for (const section of sections ?? []) {
    const playlist = dig(section, ["itemSectionRenderer", "contents", "0", "playlistVideoListRenderer", "contents"]);
    arrays.push(Array.isArray(playlist) ? (playlist as Json[]) : [section]);
  }
  const search = dig(page, [
    "contents",
    "twoColumnSearchResultsRenderer",
    "primaryContents",
    "sectionListRenderer",
    "contents",
  ]);
  if (Array.isArray(search)) arrays.push(search as Json[]);
  for (const key of ["onResponseReceivedActions", "onResponseReceivedCommands", "onResponseReceivedEndpoints"]) {
    for (const action of (page[key] as Json[] | undefined) ?? []) {
      const items =
        dig(action, ["appendContinuationItemsAction", "continuationItems"]) ??
        dig(action, ["reloadContinuationItemsCommand", "continuationItems"]);
      if (Array.isArray(items)) arrays.push(items as Json[]);
    }
  }
  return arrays;
}

function dig(value: unknown, path: string[]): unknown {
  let current = value;
  for (const key of path) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Json)[key];
  }
  return current;
}
