import type { RequestBody } from "@verbatim/contract";
import type { Request } from "express";
import type { ListTarget } from "../../adapters/youtube/video-lists.ts";
import type { AppDeps } from "../../deps.ts";
import { ApiError } from "../../errors.ts";
import { usageBlock } from "../../services/credits.ts";
import { pricing } from "../../services/pricing.ts";
import type { VideoLists } from "../../services/video-lists.ts";
import { settlementOf } from "../idempotency.ts";
import { authOf, requestIdOf } from "../locals.ts";
import { bodyOf, type LiveRoute, sendOk } from "../route.ts";

type ListOperation = "fetchChannelVideos" | "fetchPlaylistVideos" | "searchVideos";

/** The paging fields every list request shares. */
type PageFields = Pick<RequestBody<ListOperation>, "limit" | "cursor" | "since_video_id">;

/** The three list operations over the list service. */
export function listRoutes(deps: AppDeps, lists: VideoLists): LiveRoute[] {
  return [
    listRoute(deps, lists, "fetchChannelVideos", (req) => {
      const body = bodyOf<RequestBody<"fetchChannelVideos">>(req);
      return {
        kind: "channel",
        channel: body.channel,
        tab: body.tab ?? "videos",
        sort: body.sort ?? "newest",
        ...(body.query === undefined ? {} : { query: body.query }),
      };
    }),
    listRoute(deps, lists, "fetchPlaylistVideos", (req) => ({
      kind: "playlist",
      playlist: bodyOf<RequestBody<"fetchPlaylistVideos">>(req).playlist,
    })),
    listRoute(deps, lists, "searchVideos", (req) => {
      const body = bodyOf<RequestBody<"searchVideos">>(req);
      const platform = body.platform ?? "youtube";
      if (platform !== "youtube") {
        throw new ApiError("unsupported_platform", `Search serves youtube only, not ${platform}.`);
      }
      return { kind: "search", query: body.query, type: body.type ?? "video" };
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
 * `POST /transcripts/{channel,playlist,search}`: one page of a YouTube list. A page with rows
 * costs 1 credit, an empty one nothing, any request with `since_video_id` 1 credit
 * (docs/decisions.md, rules 8 and 11); it holds an extraction slot like a transcript, since it
 * fetches from YouTube.
 */
function listRoute(
  deps: AppDeps,
  lists: VideoLists,
  operationId: ListOperation,
  targetOf: (req: Request) => ListTarget,
): LiveRoute {
  return {
    operationId,
    holdsExtractionSlot: true,
    handler: async (req, res) => {
      const body = bodyOf<PageFields>(req);
      const query = await lists.prepare({
        target: targetOf(req),
        limit: body.limit ?? 5,
        cursor: body.cursor ?? "",
        ...(body.since_video_id === undefined ? {} : { sinceVideoId: body.since_video_id }),
      });
      const auth = authOf(res);
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
          platform: "youtube",
          videos: page.rows,
          next_cursor: page.nextCursor,
        },
        usage: usageBlock(credits, balance, 0),
      });
    },
  };
}
