import type { RequestBody } from "@verbatim/contract";
import type { Request, Response } from "express";
import { pricing, usageBlock } from "../../services/accounts/index.ts";
import type { VideoLists } from "../../services/lists/index.ts";
import type { ListingRequest } from "../../sources/listing-source.ts";
import type { AppDeps } from "../app-deps.ts";
import { settlementOf } from "../idempotency.ts";
import { authOf, listScopeOf, requestIdOf } from "../locals.ts";
import { bodyOf, type LiveRoute, sendOk, wasSent } from "../route.ts";

type ListOperation = "fetchChannelVideos" | "fetchPlaylistVideos" | "searchVideos";

/** The paging fields every list request shares. */
type PageFields = Pick<RequestBody<ListOperation>, "limit" | "cursor" | "since_video_id">;

/** The three list operations over the list service. */
export function listRoutes(deps: AppDeps, lists: VideoLists): LiveRoute[] {
  return [
    listRoute(deps, lists, "fetchChannelVideos", (req, res) => {
      const body = bodyOf<RequestBody<"fetchChannelVideos">>(req);
      // Only what the client sent: a list that takes no tab refuses one sent, never a default.
      return {
        kind: "channel",
        channel: body.channel,
        ...(body.tab !== undefined && wasSent(res, "tab") ? { tab: body.tab } : {}),
        ...(body.sort !== undefined && wasSent(res, "sort") ? { sort: body.sort } : {}),
        ...(body.query === undefined ? {} : { query: body.query }),
      };
    }),
    listRoute(deps, lists, "fetchPlaylistVideos", (req) => ({
      kind: "playlist",
      playlist: bodyOf<RequestBody<"fetchPlaylistVideos">>(req).playlist,
    })),
    listRoute(deps, lists, "searchVideos", (req) => {
      const body = bodyOf<RequestBody<"searchVideos">>(req);
      return {
        kind: "search",
        query: body.query,
        type: body.type ?? "video",
        ...(body.platform === undefined ? {} : { platform: body.platform }),
      };
    }),
  ];
}

const sources = {
  fetchChannelVideos: "channel",
  fetchPlaylistVideos: "playlist",
  searchVideos: "search",
} as const satisfies Record<ListOperation, string>;

const paths = {
  fetchChannelVideos: "/transcripts/channel",
  fetchPlaylistVideos: "/transcripts/playlist",
  searchVideos: "/transcripts/search",
} as const satisfies Record<ListOperation, string>;

/**
 * `POST /transcripts/{channel,playlist,search}`: one page of a list, from whichever source reads
 * it. A page with rows costs 1 credit, an empty one nothing, any request with `since_video_id` 1
 * credit (docs/decisions.md, rules 8 and 11); it holds an extraction slot like a transcript,
 * since it fetches from the platform.
 */
function listRoute(
  deps: AppDeps,
  lists: VideoLists,
  operationId: ListOperation,
  requestOf: (req: Request, res: Response) => ListingRequest,
): LiveRoute {
  return {
    operationId,
    holdsExtractionSlot: true,
    handler: async (req, res) => {
      const body = bodyOf<PageFields>(req);
      const auth = authOf(res);
      const query = await lists.prepare(
        {
          request: requestOf(req, res),
          limit: body.limit ?? 5,
          cursor: body.cursor ?? "",
          ...(body.since_video_id === undefined ? {} : { sinceVideoId: body.since_video_id }),
        },
        auth.accountId,
      );
      const scope = listScopeOf(res);
      if (scope && !scope.platforms.includes(query.listing.platform)) throw scope.refusal(query.listing.label);
      // Input errors come first: a 402 is for a request that would otherwise run.
      deps.platform.credits.requireAtLeast(auth.credits, pricing.minimum());
      const page = await lists.read(query);
      const credits = pricing.listPage(page.rows.length, query.marker !== null);
      const settlement = settlementOf(res);
      const balance = await deps.platform.credits.charge({
        accountId: auth.accountId,
        credits,
        operation: `POST ${paths[operationId]}`,
        requestId: requestIdOf(res),
        ...(settlement ? { settlement } : {}),
      });
      sendOk(res, operationId, 200, {
        data: {
          kind: "video_list",
          source: sources[operationId],
          platform: query.listing.platform,
          videos: page.rows,
          next_cursor: page.nextCursor,
        },
        usage: usageBlock(credits, balance, 0),
      });
    },
  };
}
