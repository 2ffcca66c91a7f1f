import {
  type ForeignReference,
  parseChannelReference,
  parsePlaylistReference,
} from "../adapters/youtube/list-reference.ts";
import type { ListRow, ListTarget, UpstreamListPage, VideoListSource } from "../adapters/youtube/video-lists.ts";
import { parseVideoReference } from "../adapters/youtube/video-reference.ts";
import { ApiError } from "../errors.ts";
import type { ListCursors, ListPosition } from "./list-cursors.ts";
import { toApiError } from "./video-transcripts.ts";

/**
 * The most upstream pages one request reads. A page of 50 needs at most 4 of YouTube's (20 to
 * 100 rows each, the first perhaps returned but for a row); the rest is a bound if YouTube ever
 * kept answering empty pages.
 */
export const maxUpstreamPagesPerRequest = 10;

/** Where YouTube videos and other sites' addresses (feeds, podcast pages, media files) are transcribed. */
const videoEndpoint = "/api/v2/transcripts/video";

/** A list request as the client sent it. */
export interface ListPageRequest {
  target: ListTarget;
  /** Rows per page, 1 to 50. */
  limit: number;
  /** The `next_cursor` of the previous page; empty for the first page. */
  cursor: string;
  /** The newest video the client has seen: a bare id or a YouTube video URL (docs/decisions.md, rule 11). */
  sinceVideoId?: string;
}

/** A list request checked and ready to read: nothing in it can fail as the client's fault any more. */
export interface PageQuery {
  target: ListTarget;
  limit: number;
  position: ListPosition;
  /** The video id of `since_video_id`. */
  marker: string | null;
}

/** One page for the client. */
export interface ListPage {
  rows: ListRow[];
  /** `null` only when the list is exhausted or the marker was found. */
  nextCursor: string | null;
}

/**
 * Pages of exactly `limit` rows over YouTube's lists, whatever YouTube's own page sizes: rows
 * are gathered across upstream pages until `limit` or the end (or an upstream page that fails),
 * and the cursor remembers where the next page starts, so a walk yields every row once, in order.
 */
export class VideoLists {
  constructor(
    private readonly source: VideoListSource,
    private readonly cursors: ListCursors,
  ) {}

  /**
   * Checks `since_video_id` and the cursor (400 `invalid_request` or `invalid_cursor`), then the
   * list reference (422 `endpoint_platform_mismatch` or `invalid_input`), all before any upstream
   * work: the request's shape is judged before what its input names.
   */
  async prepare(request: ListPageRequest): Promise<PageQuery> {
    const marker = markerOf(request.target, request.sinceVideoId);
    const position = await this.cursors.read(request.cursor, request.target);
    checkListReference(request.target);
    return { target: request.target, limit: request.limit, position, marker };
  }

  /**
   * Reads the upstream page the position points into, then the pages after it until `limit` rows
   * or the end. A request reads each upstream page once; only its first read can repeat one an
   * earlier request read, when that request stopped inside the page. When a page after the first
   * fails, the rows gathered so far are the page, and its cursor points at the failed page.
   */
  async read(query: PageQuery): Promise<ListPage> {
    const { target, limit, marker } = query;
    let continuation = query.position.continuation;
    let page = await this.fetch(target, continuation);
    let start = Math.min(query.position.skip, page.rows.length);
    const rows: ListRow[] = [];
    for (let fetched = 1; ; fetched++) {
      const taken = page.rows.slice(start, start + limit - rows.length);
      const markerAt = marker === null ? -1 : taken.findIndex((row) => "videoId" in row && row.videoId === marker);
      if (markerAt >= 0) return { rows: [...rows, ...taken.slice(0, markerAt)], nextCursor: null };
      rows.push(...taken);
      const end = start + taken.length;
      if (end < page.rows.length) return this.pageWithCursor(rows, target, { continuation, skip: end });
      if (page.continuation === null) return { rows, nextCursor: null };
      if (rows.length === limit) return this.pageWithCursor(rows, target, { continuation: page.continuation, skip: 0 });
      if (fetched === maxUpstreamPagesPerRequest) {
        throw new ApiError(
          "upstream_error",
          `YouTube answered ${fetched} pages without reaching ${limit} rows or the end of the list. Nothing was charged; retry later.`,
        );
      }
      continuation = page.continuation;
      try {
        page = await this.fetch(target, continuation);
      } catch (error) {
        // Failing the request would withhold the rows already read for as long as this page fails.
        if (rows.length > 0) return this.pageWithCursor(rows, target, { continuation, skip: 0 });
        throw error;
      }
      start = 0;
    }
  }

  private async pageWithCursor(rows: ListRow[], target: ListTarget, next: ListPosition): Promise<ListPage> {
    return { rows, nextCursor: await this.cursors.issue(target, next) };
  }

  private async fetch(target: ListTarget, continuation: string | null): Promise<UpstreamListPage> {
    try {
      return continuation === null
        ? await this.source.firstPage(target)
        : await this.source.nextPage(target, continuation);
    } catch (error) {
      throw toApiError(error);
    }
  }
}

/** Refuses a channel or playlist input that names no such list; a search query is free text. */
export function checkListReference(target: ListTarget): void {
  switch (target.kind) {
    case "channel": {
      const reference = parseChannelReference(target.channel);
      if (reference.kind === "id" || reference.kind === "vanity") return;
      throw refusalOf(reference, target.channel, "channel", "an @handle, a channel URL or a UC... channel id");
    }
    case "playlist": {
      const reference = parsePlaylistReference(target.playlist);
      if (reference.kind === "id") return;
      throw refusalOf(reference, target.playlist, "playlist", "a playlist id or a URL with a list parameter");
    }
    case "search":
      return;
  }
}

function refusalOf(reference: ForeignReference, input: string, list: string, expected: string): ApiError {
  const retryWithVideo = { extra: { retry_with: { endpoint: videoEndpoint } } };
  switch (reference.kind) {
    case "video":
      return new ApiError(
        "endpoint_platform_mismatch",
        `"${input}" is a YouTube video, not a ${list}; the video endpoint transcribes it.`,
        retryWithVideo,
      );
    case "other-site":
      return new ApiError(
        "endpoint_platform_mismatch",
        `"${input}" is not a YouTube address; ${list} lists serve YouTube only, the video endpoint serves other sites.`,
        retryWithVideo,
      );
    case "malformed":
      return new ApiError("invalid_input", `"${input}" names no YouTube ${list}: send ${expected}.`);
  }
}

/**
 * The video id of `since_video_id`, when it is sent and allowed with this list
 * (docs/decisions.md, rule 11); else 400 `invalid_request`.
 */
function markerOf(target: ListTarget, sinceVideoId: string | undefined): string | null {
  if (sinceVideoId === undefined) return null;
  const conflict = sinceVideoIdConflict(target);
  if (conflict) throw invalidSinceVideoId(conflict.message, conflict.issue);
  const reference = parseVideoReference(sinceVideoId);
  if (reference.kind !== "youtube") {
    throw invalidSinceVideoId(
      "since_video_id must name a YouTube video.",
      `"${sinceVideoId}" is neither a YouTube video id nor a YouTube video URL`,
    );
  }
  return reference.videoId;
}

/** Why `since_video_id` cannot mark a place in this list: only newest-first video lists have "newer than". */
function sinceVideoIdConflict(target: ListTarget): { message: string; issue: string } | null {
  switch (target.kind) {
    case "channel": {
      const message = "since_video_id works only with the newest order and no query.";
      if (target.sort !== "newest") return { message, issue: `not allowed with sort ${target.sort}` };
      if (target.query !== undefined) return { message, issue: "not allowed with query" };
      return null;
    }
    case "search":
      return target.type === "video"
        ? null
        : { message: "since_video_id works only with video results.", issue: `not allowed with type ${target.type}` };
    case "playlist":
      return null;
  }
}

function invalidSinceVideoId(message: string, issue: string): ApiError {
  return new ApiError("invalid_request", message, {
    extra: { issues: [{ path: "/body/since_video_id", message: issue }] },
  });
}
