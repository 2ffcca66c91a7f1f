import type { CaptionSource } from "../../src/adapters/youtube/index.ts";
import type { ListRow, ListTarget, UpstreamListPage, VideoListSource } from "../../src/adapters/youtube/video-lists.ts";
import { startServer, type TestServer } from "../support/server.ts";

/** A list row for a video id, shaped like the adapter's. */
export function videoRow(videoId: string): ListRow {
  return {
    videoId,
    url: `https://www.youtube.com/watch?v=${videoId}`,
    title: `Video ${videoId}`,
    duration: 60,
    channel: "Memory",
    publishedAt: null,
    stats: { plays: 1 },
    thumbnailUrl: `https://i.ytimg.com/vi/${videoId}/mqdefault.jpg`,
  };
}

/** `count` distinct, well-formed YouTube video ids (11 characters), in order. */
export function videoIds(count: number, prefix = "v"): string[] {
  return Array.from({ length: count }, (_, index) => `${prefix}${String(index).padStart(11 - prefix.length, "0")}`);
}

/** The video ids of rows, for comparing walks. */
export function idsOf(rows: readonly unknown[]): string[] {
  return rows.map((row) => (row as { videoId: string }).videoId);
}

export interface MemoryListOptions {
  /** The continuation token that leads to page `index` (1 or more); short unique tokens by default. */
  tokenOf?: (index: number) => string;
  /** Holds every answer until this resolves (to keep requests in flight). */
  gate?: Promise<void>;
}

/**
 * A `VideoListSource` over pages held in memory, the same pages for every target: YouTube's
 * shape (a first page, then each page from the token of the one before) with page sizes the
 * test chooses. It logs every call and can be told to fail.
 */
export class MemoryListSource implements VideoListSource {
  readonly calls: Array<{ target: ListTarget; continuation: string | null }> = [];
  private failure: Error | undefined;
  private readonly failuresAt = new Map<string, Error>();
  private readonly pages: ListRow[][];
  private readonly tokenOf: (index: number) => string;

  constructor(
    pageSizesOrPages: readonly number[] | ListRow[][],
    private readonly options: MemoryListOptions = {},
  ) {
    this.pages = isPageSizes(pageSizesOrPages) ? pagesOfSizes(pageSizesOrPages) : pageSizesOrPages;
    this.tokenOf = options.tokenOf ?? ((index) => `token-${index}`);
  }

  /** Every video id of the list, in order. */
  get videoIds(): string[] {
    return idsOf(this.pages.flat());
  }

  /** Makes every later call throw this. */
  failWith(error: Error): this {
    this.failure = error;
    return this;
  }

  /** Makes every later read of the page behind this continuation throw this. */
  failAt(continuation: string, error: Error): this {
    this.failuresAt.set(continuation, error);
    return this;
  }

  async firstPage(target: ListTarget): Promise<UpstreamListPage> {
    return this.answer(target, null, 0);
  }

  async nextPage(target: ListTarget, continuation: string): Promise<UpstreamListPage> {
    const index = this.pages.findIndex((_, candidate) => candidate > 0 && this.tokenOf(candidate) === continuation);
    if (index < 0) throw new Error(`no page behind continuation ${continuation.slice(0, 40)}`);
    return this.answer(target, continuation, index);
  }

  private async answer(target: ListTarget, continuation: string | null, index: number): Promise<UpstreamListPage> {
    this.calls.push({ target, continuation });
    await this.options.gate;
    if (this.failure) throw this.failure;
    const failureHere = continuation === null ? undefined : this.failuresAt.get(continuation);
    if (failureHere) throw failureHere;
    const rows = this.pages[index] ?? [];
    return { rows, continuation: index + 1 < this.pages.length ? this.tokenOf(index + 1) : null };
  }
}

function isPageSizes(value: readonly number[] | ListRow[][]): value is readonly number[] {
  return value.every((item) => typeof item === "number");
}

function pagesOfSizes(sizes: readonly number[]): ListRow[][] {
  const ids = videoIds(sizes.reduce((sum, size) => sum + size, 0));
  return sizes.map((size, index) => {
    const first = sizes.slice(0, index).reduce((sum, before) => sum + before, 0);
    return ids.slice(first, first + size).map(videoRow);
  });
}

/**
 * A test server whose YouTube lists come from `currentSource()`, asked at every call so a test
 * can put in a new source between requests.
 */
export function startListServer(currentSource: () => MemoryListSource): Promise<TestServer> {
  const lists: VideoListSource = {
    firstPage: (target) => currentSource().firstPage(target),
    nextPage: (target, continuation) => currentSource().nextPage(target, continuation),
  };
  const captions: CaptionSource = {
    listCaptions: () => Promise.reject(new Error("the list tests list no captions")),
    readCaptions: () => Promise.reject(new Error("the list tests read no captions")),
  };
  return startServer({ credits: 1000, adapters: { youtube: { captions, lists } } });
}
