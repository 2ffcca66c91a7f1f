import type { RequestBody } from "@verbatim/contract";
import type { AppDeps } from "../../deps.ts";
import { ApiError } from "../../errors.ts";
import { usageBlock } from "../../services/credits.ts";
import { renderTranscript, type TranscriptFormat, textOf } from "../../services/transcript-renderings.ts";
import { storeUnreachable } from "../auth.ts";
import { authOf } from "../locals.ts";
import { bodyOf, type LiveRoute, sendOk } from "../route.ts";

/**
 * `GET /library`, `POST /library/search` and `GET /library/{id}`: the account's fetched
 * transcripts, listed, searched and read again in any format. Free.
 */
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
        sendOk(res, "listLibrary", 200, {
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
        sendOk(res, "searchLibrary", 200, {
          data: { kind: "library_search", hits: page.rows, next_cursor: page.nextCursor },
          usage: usageBlock(0, auth.credits),
        });
      },
    },
    {
      operationId: "getLibraryTranscript",
      handler: async (req, res) => {
        const auth = authOf(res);
        const id = String(req.params.id);
        const { format, chunk_size } = req.query as { format?: TranscriptFormat; chunk_size?: number | string };
        const found = await library.transcript(auth.accountId, id).catch((cause: unknown) => {
          throw storeUnreachable(cause);
        });
        // Another account's entry is as unknown as a missing one.
        if (!found) throw new ApiError("not_found", `No transcript ${id} in this account's library.`);
        sendOk(res, "getLibraryTranscript", 200, {
          data: {
            kind: "library_transcript",
            ...found.entry,
            ...renderTranscript(found.segments, {
              format: format ?? "segments",
              ...(chunk_size === undefined ? {} : { chunkSize: Number(chunk_size) }),
            }),
          },
          // As for `POST /transcripts/video`, `usage.bytes` counts the words returned, whatever the format.
          usage: usageBlock(0, auth.credits, Buffer.byteLength(textOf(found.segments))),
        });
      },
    },
  ];
}
