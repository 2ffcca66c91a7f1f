import type { Schema } from "@verbatim/contract";

/** One row of a list page, exactly as the wire carries it. */
export type ListRow = Schema<"VideoRow"> | Schema<"ChannelRow"> | Schema<"PlaylistRow">;

/** Which YouTube list to read, with every parameter that changes its contents. */
export type ListTarget =
  | {
      kind: "channel";
      /** An `@handle`, a channel URL or a `UC...` id, as the client sent it. */
      channel: string;
      tab: "videos" | "shorts" | "live";
      sort: "newest" | "popular" | "oldest";
      /** Search inside the channel instead of listing the tab. */
      query?: string;
    }
  | { kind: "playlist" /** A playlist URL or id. */; playlist: string }
  | { kind: "search"; query: string; type: "video" | "channel" | "playlist" };

/** One page of a list as YouTube serves it: its own size, and a token for the page after it. */
export interface UpstreamListPage {
  rows: ListRow[];
  /** YouTube's continuation token for the next page; `null` when this page is the last. */
  continuation: string | null;
}

/**
 * Reads YouTube lists page by page, in YouTube's own page sizes. Paging to exactly `limit`
 * rows and signing cursors is the list service's work, not the adapter's. Failures are
 * `VideoUnavailableError` (a channel or playlist that does not exist, is private, ...) or
 * `UpstreamError`, like the caption source's.
 */
export interface VideoListSource {
  firstPage(target: ListTarget): Promise<UpstreamListPage>;
  /** The page a continuation token of an earlier page of the same target points to. */
  nextPage(target: ListTarget, continuation: string): Promise<UpstreamListPage>;
}
