import { parseChannelReference, parsePlaylistReference } from "../../adapters/youtube/list-reference.ts";
import { UpstreamError, VideoUnavailableError } from "../../adapters/youtube/upstream-errors.ts";
import type { ListTarget, UpstreamListPage, VideoListSource } from "../../adapters/youtube/video-lists.ts";
import { parseVideoReference } from "../../adapters/youtube/video-reference.ts";
import type { ChannelOption, Listing, ListingMarker, ListingRequest, ListingSource } from "../listing-source.ts";
import { SourceError, type SourceErrorKind } from "../source-error.ts";

/** The wire's `platform` of YouTube's list pages. */
export const youtubeListPlatform = "youtube";

/** The channel options YouTube's channel lists take: its tabs, its orders and the search inside a channel. */
const channelOptions: readonly ChannelOption[] = ["tab", "sort", "query"];

/**
 * YouTube's lists as a listing source: channels (their tabs, orders and channel search),
 * playlists and search, read by the youtubei.js adapter. It claims YouTube's own references and
 * addresses, and refuses a YouTube video sent as a list.
 */
export class YoutubeListings implements ListingSource {
  readonly accepts = {
    channel: "a YouTube `@handle`, channel URL or UC... channel id",
    playlist: "a YouTube playlist id or a URL with a list parameter",
  };
  readonly searchPlatforms = [youtubeListPlatform];

  constructor(private readonly lists: VideoListSource) {}

  match(request: ListingRequest): Listing | SourceError | null {
    switch (request.kind) {
      case "channel":
        return this.matchChannel(request);
      case "playlist":
        return this.matchPlaylist(request.playlist);
      case "search":
        // YouTube's search is the contract's default.
        return request.platform === undefined || request.platform === youtubeListPlatform
          ? new YoutubeListing(this.lists, { kind: "search", query: request.query, type: request.type })
          : null;
    }
  }

  private matchChannel(request: Extract<ListingRequest, { kind: "channel" }>): Listing | SourceError | null {
    const input = request.channel;
    const reference = parseChannelReference(input);
    switch (reference.kind) {
      case "id":
      case "vanity":
        return new YoutubeListing(this.lists, {
          kind: "channel",
          channel: input,
          tab: request.tab ?? "videos",
          sort: request.sort ?? "newest",
          ...(request.query === undefined ? {} : { query: request.query }),
        });
      case "video":
        return new SourceError(
          "item_not_list",
          `"${input}" is a YouTube video, not a channel; the video endpoint transcribes it.`,
        );
      default:
        return isYoutubeAddress(input)
          ? new SourceError(
              "invalid_input",
              `"${input}" names no YouTube channel: send an @handle, a channel URL or a UC... channel id.`,
            )
          : null;
    }
  }

  private matchPlaylist(input: string): Listing | SourceError | null {
    const reference = parsePlaylistReference(input);
    switch (reference.kind) {
      case "id":
        return new YoutubeListing(this.lists, { kind: "playlist", playlist: input });
      case "video":
        return new SourceError(
          "item_not_list",
          `"${input}" is a YouTube video, not a playlist; the video endpoint transcribes it.`,
        );
      default:
        return isYoutubeAddress(input)
          ? new SourceError(
              "invalid_input",
              `"${input}" names no YouTube playlist: send a playlist id or a URL with a list parameter.`,
            )
          : null;
    }
  }
}

/** One YouTube list: the target the adapter reads, which is also what cursors are bound to. */
class YoutubeListing implements Listing {
  readonly platform = youtubeListPlatform;
  readonly monitorPlatform = youtubeListPlatform;
  readonly label: string;
  readonly identity: Record<string, unknown>;
  readonly options: readonly ChannelOption[];

  constructor(
    private readonly lists: VideoListSource,
    private readonly target: ListTarget,
  ) {
    this.identity = { ...target };
    this.options = target.kind === "channel" ? channelOptions : [];
    this.label =
      target.kind === "channel"
        ? `the YouTube channel ${target.channel}`
        : target.kind === "playlist"
          ? `the YouTube playlist ${target.playlist}`
          : "YouTube's search";
  }

  markerOf(sinceVideoId: string): ListingMarker {
    const conflict = markerConflict(this.target);
    if (conflict) return conflict;
    const reference = parseVideoReference(sinceVideoId);
    if (reference.kind !== "youtube") {
      return {
        problem: "since_video_id must name a YouTube video.",
        issue: `"${sinceVideoId}" is neither a YouTube video id nor a YouTube video URL`,
      };
    }
    return { itemId: reference.videoId };
  }

  firstPage(): Promise<UpstreamListPage> {
    return sourceFailures(() => this.lists.firstPage(this.target));
  }

  nextPage(continuation: string): Promise<UpstreamListPage> {
    return sourceFailures(() => this.lists.nextPage(this.target, continuation));
  }
}

/** Why `since_video_id` cannot mark a place in this list: only newest-first video lists have "newer than". */
function markerConflict(target: ListTarget): ListingMarker | null {
  switch (target.kind) {
    case "channel": {
      const problem = "since_video_id works only with the newest order and no query.";
      if (target.sort !== "newest") return { problem, issue: `not allowed with sort ${target.sort}` };
      if (target.query !== undefined) return { problem, issue: "not allowed with query" };
      return null;
    }
    case "search":
      return target.type === "video"
        ? null
        : { problem: "since_video_id works only with video results.", issue: `not allowed with type ${target.type}` };
    case "playlist":
      return null;
  }
}

/** Whether the input is a YouTube address (or id), which no other source may claim. */
function isYoutubeAddress(input: string): boolean {
  const kind = parseVideoReference(input).kind;
  return kind === "youtube" || kind === "youtube-without-video";
}

/** What the adapter's failures are as a source's. */
const kindOfUpstreamFailure: Record<UpstreamError["kind"], SourceErrorKind> = {
  blocked: "blocked",
  timeout: "timeout",
  connection: "connection",
  unparseable: "unparseable",
  // YouTube failing on its side after retries: refused for now, like a block.
  failed: "blocked",
};

const kindOfVideoFailure: Record<VideoUnavailableError["reason"], SourceErrorKind> = {
  private: "private",
  unavailable: "unavailable",
  members_only: "members_only",
  age_restricted: "age_restricted",
  region_blocked: "region_blocked",
  live_stream: "live_stream",
  was_live: "live_stream",
  no_captions: "no_captions",
  captions_disabled: "no_captions",
};

/** Runs an adapter call, its failures as `SourceError`s. */
async function sourceFailures<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof UpstreamError) {
      throw new SourceError(kindOfUpstreamFailure[error.kind], error.message, { cause: error });
    }
    if (error instanceof VideoUnavailableError) {
      throw new SourceError(kindOfVideoFailure[error.reason], error.message, { cause: error });
    }
    throw error;
  }
}
