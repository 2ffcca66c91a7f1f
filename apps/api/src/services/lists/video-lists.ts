import { ApiError } from "../../errors.ts";
import type { ListingRegistry } from "../../sources/listing-registry.ts";
import type {
  ChannelOption,
  Listing,
  ListingCallOptions,
  ListingPage,
  ListingRequest,
  ListRow,
} from "../../sources/listing-source.ts";
import type { ListCursors, ListPosition } from "../cursors/index.ts";
import { toApiError } from "../failures/index.ts";

/**
 * The most upstream pages one request reads. A page of 50 needs at most 4 of YouTube's (20 to
 * 100 rows each, the first perhaps returned but for a row); the rest is a bound if a source ever
 * kept answering empty pages.
 */
export const maxUpstreamPagesPerRequest = 10;

/** Where single items (videos, posts, episodes, media files) are transcribed. */
const videoEndpoint = "/api/v2/transcripts/video";

/** A list request as the client sent it. */
export interface ListPageRequest {
  request: ListingRequest;
  /** Rows per page, 1 to 50. */
  limit: number;
  /** The `next_cursor` of the previous page; empty for the first page. */
  cursor: string;
  /** The newest item the client has seen: a bare id or a row's URL (docs/decisions.md, rule 11). */
  sinceVideoId?: string;
}

/** A list request checked and ready to read: nothing in it can fail as the client's fault any more. */
export interface PageQuery {
  listing: Listing;
  limit: number;
  position: ListPosition;
  /** The item id of `since_video_id`. */
  marker: string | null;
  /** Whose share of a shared source the reads take. */
  accountId?: string;
}

/** One page for the client. */
export interface ListPage {
  rows: ListRow[];
  /** `null` only when the list is exhausted or the marker was found. */
  nextCursor: string | null;
}

/**
 * Pages of exactly `limit` rows over any source's lists, whatever the source's own page sizes:
 * rows are gathered across upstream pages until `limit` or the end (or an upstream page that
 * fails), and the cursor remembers where the next page starts, so a walk yields every row once,
 * in order. Which source reads a list is the listing registry's answer, never this service's
 * question.
 */
export class VideoLists {
  constructor(
    private readonly registry: ListingRegistry,
    private readonly cursors: ListCursors,
  ) {}

  /**
   * Matches the request to its list, then checks the options it sent, `since_video_id` and the
   * cursor (400 `invalid_request` or `invalid_cursor`), all before any upstream work; an input
   * that names no list answers 422, after its cursor is checked.
   */
  async prepare(request: ListPageRequest, accountId?: string): Promise<PageQuery> {
    let listing: Listing;
    try {
      listing = listingOf(this.registry, request.request);
    } catch (refusal) {
      // The cursor is the request's shape: judged before what the input names.
      await this.cursors.check(request.cursor);
      throw refusal;
    }
    const marker = markerOf(listing, request.sinceVideoId);
    const position = await this.cursors.read(request.cursor, listing.identity);
    return {
      listing,
      limit: request.limit,
      position,
      marker,
      ...(accountId === undefined ? {} : { accountId }),
    };
  }

  /**
   * Reads the upstream page the position points into, then the pages after it until `limit` rows
   * or the end. A request reads each upstream page once; only its first read can repeat one an
   * earlier request read, when that request stopped inside the page. When a page after the first
   * fails, the rows gathered so far are the page, and its cursor points at the failed page.
   */
  async read(query: PageQuery): Promise<ListPage> {
    const { listing, limit, marker } = query;
    const options: ListingCallOptions = query.accountId === undefined ? {} : { accountId: query.accountId };
    let continuation = query.position.continuation;
    let page = await fetchPage(listing, continuation, options);
    let start = Math.min(query.position.skip, page.rows.length);
    const rows: ListRow[] = [];
    for (let fetched = 1; ; fetched++) {
      const taken = page.rows.slice(start, start + limit - rows.length);
      const markerAt = marker === null ? -1 : taken.findIndex((row) => "videoId" in row && row.videoId === marker);
      if (markerAt >= 0) return { rows: [...rows, ...taken.slice(0, markerAt)], nextCursor: null };
      rows.push(...taken);
      const end = start + taken.length;
      if (end < page.rows.length) return this.pageWithCursor(rows, listing, { continuation, skip: end });
      if (page.continuation === null) return { rows, nextCursor: null };
      if (rows.length === limit) {
        return this.pageWithCursor(rows, listing, { continuation: page.continuation, skip: 0 });
      }
      if (fetched === maxUpstreamPagesPerRequest) {
        throw new ApiError(
          "upstream_error",
          `${capitalised(listing.label)} answered ${fetched} pages without reaching ${limit} rows or the end of the list. Nothing was charged; retry later.`,
        );
      }
      continuation = page.continuation;
      try {
        page = await fetchPage(listing, continuation, options);
      } catch (error) {
        // Failing the request would withhold the rows already read for as long as this page fails.
        if (rows.length > 0) return this.pageWithCursor(rows, listing, { continuation, skip: 0 });
        throw error;
      }
      start = 0;
    }
  }

  private async pageWithCursor(rows: ListRow[], listing: Listing, next: ListPosition): Promise<ListPage> {
    return { rows, nextCursor: await this.cursors.issue(listing.identity, next) };
  }
}

/** One page of a list; a source's failure as the catalog's error. */
export async function fetchPage(
  listing: Listing,
  continuation: string | null,
  options: ListingCallOptions = {},
): Promise<ListingPage> {
  try {
    return continuation === null ? await listing.firstPage(options) : await listing.nextPage(continuation, options);
  } catch (error) {
    throw toApiError(error);
  }
}

/**
 * The list a request names, with the options it sent checked against what that list takes
 * (400 `invalid_request`); an input no source lists answers 422 before any upstream call.
 */
export function listingOf(registry: ListingRegistry, request: ListingRequest): Listing {
  const match = registry.match(request);
  if ("refusal" in match) throw toApiError(match.refusal);
  if ("unmatched" in match) {
    throw request.kind === "search"
      ? new ApiError(
          "unsupported_platform",
          `This server does not search ${request.platform ?? "by default"}; ${searchedBy(registry)}.`,
        )
      : unlistedInput(request, match.unmatched.accepted);
  }
  refuseUntakenOptions(request, match.listing);
  return match.listing;
}

/** The channel options a request sent that its list does not take: each an issue of one 400. */
function refuseUntakenOptions(request: ListingRequest, listing: Listing): void {
  if (request.kind !== "channel") return;
  const sent = (["tab", "sort", "query"] as const).filter((option) => request[option] !== undefined);
  const untaken = sent.filter((option: ChannelOption) => !listing.options.includes(option));
  const [first] = untaken;
  if (first === undefined) return;
  throw new ApiError(
    "invalid_request",
    `${untaken.join(", ")} ${untaken.length === 1 ? "is not an option" : "are not options"} of ${listing.label}.`,
    {
      extra: {
        issues: untaken.map((option) => ({ path: `/body/${option}`, message: `not allowed for ${listing.label}` })),
      },
    },
  );
}

/** What a request whose input no listing source claims is told. */
function unlistedInput(request: Exclude<ListingRequest, { kind: "search" }>, accepted: readonly string[]): ApiError {
  const input = request.kind === "channel" ? request.channel : request.playlist;
  // The video endpoint reads any web address: a feed, a page, a media file, another site's video.
  if (/^https?:\/\//i.test(input.trim())) {
    return new ApiError(
      "endpoint_platform_mismatch",
      `"${input}" is no ${request.kind} this server lists; the video endpoint transcribes the item at an address.`,
      { extra: { retry_with: { endpoint: videoEndpoint } } },
    );
  }
  return new ApiError("invalid_input", `"${input}" names no ${request.kind}: send ${accepted.join("; or ")}.`);
}

/** The item id of `since_video_id`, when it is sent and marks a place in this list (docs/decisions.md, rule 11); else 400. */
function markerOf(listing: Listing, sinceVideoId: string | undefined): string | null {
  if (sinceVideoId === undefined) return null;
  const marker = listing.markerOf(sinceVideoId);
  if ("itemId" in marker) return marker.itemId;
  throw new ApiError("invalid_request", marker.problem, {
    extra: { issues: [{ path: "/body/since_video_id", message: marker.issue }] },
  });
}

/** What a server searches, for a client that asked for another platform. */
function searchedBy(registry: ListingRegistry): string {
  const platforms = registry.searchPlatforms();
  return platforms.length > 0 ? `it searches ${platforms.join(", ")}` : "it searches no platform";
}

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
