import type { RequestBody } from "@verbatim/contract";
import type { AppDeps } from "../../deps.ts";
import { usageBlock } from "../../services/credits.ts";
import { authOf, storeUnreachable } from "../auth.ts";
import { requestIdOf } from "../locals.ts";
import { bodyOf, type LiveRoute, send } from "../route.ts";

/** `GET /library` and `POST /library/search`: the account's fetched transcripts, listed and searched. Free. */
export function libraryRoutes(deps: AppDeps): LiveRoute[] {
  const { library } = deps.platform;
  return [
    {
      operationId: "listLibrary",
      handler: async (req, res) => {
        const auth = authOf(res);
        const { limit, cursor } = req.query as { limit?: number; cursor?: string };
        const page = await library.list(auth.accountId, limit ?? 20, cursor || undefined).catch((cause: unknown) => {
          throw storeUnreachable(cause);
        });
        send(res, "listLibrary", 200, {
          ok: true,
          request_id: requestIdOf(res),
          data: { kind: "library_page", entries: page.rows, next_cursor: page.nextCursor },
          usage: usageBlock(0, auth.credits),
        });
      },
    },
    {
      operationId: "searchLibrary",
      handler: async (req, res) => {
        const auth = authOf(res);
        const body = bodyOf<RequestBody<"searchLibrary">>(req);
        const page = await library
          .search(auth.accountId, {
            query: body.query,
            limit: body.limit ?? 10,
            ...(body.cursor ? { cursor: body.cursor } : {}),
            ...(body.platform === undefined ? {} : { platform: body.platform }),
            ...(body.channel === undefined ? {} : { channel: body.channel }),
          })
          .catch((cause: unknown) => {
            throw storeUnreachable(cause);
          });
        send(res, "searchLibrary", 200, {
          ok: true,
          request_id: requestIdOf(res),
          data: { kind: "library_search", hits: page.rows, next_cursor: page.nextCursor },
          usage: usageBlock(0, auth.credits),
        });
      },
    },
  ];
}
