import type { Schema } from "@verbatim/contract";
import type { SourceError } from "./source-error.ts";

/** One row of a list page, exactly as the wire carries it. */
export type ListRow = Schema<"VideoRow"> | Schema<"ChannelRow"> | Schema<"PlaylistRow">;

/** Where a page's rows came from, as the wire's `platform` of a list page says it. */
export type ListPlatform = Schema<"VideoPage">["platform"];

/** Where a monitor's target is, as the wire's `platform` of a monitor says it. */
export type MonitorPlatform = Schema<"Monitor">["platform"];

/** The options of a channel list that only some sources take (YouTube's tabs, orders and channel search). */
export type ChannelOption = "tab" | "sort" | "query";

/** A list request as the client sent it; a channel's options only when the client sent them. */
export type ListingRequest =
  | {
      kind: "channel";
      /** A channel, profile or feed, as the client wrote it. */
      channel: string;
      tab?: "videos" | "shorts" | "live";
      sort?: "newest" | "popular" | "oldest";
      query?: string;
    }
  | { kind: "playlist"; playlist: string }
  | {
      kind: "search";
      query: string;
      type: "video" | "channel" | "playlist";
      /** Where to search; absent, the contract's default. */
      platform?: string;
    };

/** One page of a list as its source serves it: its own size, and a token for the page after it. */
export interface ListingPage {
  rows: ListRow[];
  /** The source's token for the next page; `null` when this page is the last. */
  continuation: string | null;
}

/** What `since_video_id` names in a list: the item's id, or why it can mark nothing there (400 `invalid_request`). */
export type ListingMarker = { itemId: string } | { problem: string; issue: string };

/** Limits and cancellation of one call for a list. */
export interface ListingCallOptions {
  signal?: AbortSignal;
  /** The account the call is made for: a source shared by every account gives each its share. */
  accountId?: string;
}

/**
 * One list a request named, matched to the source that reads it: everything a service needs to
 * page it, trim it at a marker, bind cursors to it and watch it, without asking which platform
 * it is on. Failures of its pages are `SourceError`s.
 */
export interface Listing {
  /** The wire's `platform` of its pages. */
  readonly platform: ListPlatform;
  /** The wire's `platform` of a monitor that watches it. */
  readonly monitorPlatform: MonitorPlatform;
  /** What it is, in messages: "the TikTok profile `@user`", "the feed https://…". */
  readonly label: string;
  /**
   * What makes the list, as plain data: the same list always gives the same value (whatever
   * order its fields come in), another list another. Cursors are bound to it.
   */
  readonly identity: Record<string, unknown>;
  /** The channel options this list takes; a request that sends another is refused before any upstream call. */
  readonly options: readonly ChannelOption[];
  /** The item `since_video_id` names: a bare id or a row's `url`. Offline. */
  markerOf(sinceVideoId: string): ListingMarker;
  firstPage(options?: ListingCallOptions): Promise<ListingPage>;
  /** The page a continuation token of an earlier page of the same list points to. */
  nextPage(continuation: string, options?: ListingCallOptions): Promise<ListingPage>;
}

/**
 * A source of lists: channels, profiles and feeds, playlists where its platform has them, and
 * search. Like yt-dlp's playlist extractors, each claims the inputs it reads; the registry asks
 * them in order.
 */
export interface ListingSource {
  /**
   * The list a request names, without touching the network: a `Listing`; a `SourceError` when
   * the input is this source's but names no list it reads (a video sent as a channel, a profile
   * of a platform without public listings); null when the input is not this source's.
   */
  match(request: ListingRequest): Listing | SourceError | null;
  /** What this source lists, by request kind, for a message to a client whose input no source claims. */
  readonly accepts: Partial<Record<ListingRequest["kind"], string>>;
  /** The search `platform`s this source serves. */
  readonly searchPlatforms: readonly string[];
}
