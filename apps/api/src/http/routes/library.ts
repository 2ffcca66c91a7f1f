import type { RequestBody } from "@verbatim/contract";
import { ApiError } from "../../errors.ts";
import { usageBlock } from "../../services/accounts/index.ts";
import {
  readWeight,
  rendersInline,
  renderTranscript,
  requireWordTimes,
  segmentsOf,
  type TranscriptFormat,
} from "../../services/renderings/index.ts";
import type { AppDeps } from "../app-deps.ts";
import { admitWeight, storeUnreachable } from "../auth.ts";
import { authOf } from "../locals.ts";
import { bodyOf, type LiveRoute, sendOk, sendOkRendered } from "../route.ts";

/**
 * `GET /library`, `POST /library/search` and `GET /library/{id}`: the account's fetched
 * transcripts, listed, searched and read again in any format. Free; the read of a large
 * transcript weighs more than one request of the allowance (`readWeight`), and is rendered on a
 * rendering thread.
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
          .search(
            auth.accountId,
            {
              query: body.query,
              limit: body.limit ?? 10,
              ...(body.cursor ? { cursor: body.cursor } : {}),
              ...(body.platform === undefined ? {} : { platform: body.platform }),
              ...(body.channel === undefined ? {} : { channel: body.channel }),
            },
            deps.services.links,
          )
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
        const {
          format,
          chunk_size,
          words: timed,
        } = req.query as {
          format?: TranscriptFormat;
          chunk_size?: number;
          words?: boolean;
        };
        const rendering = {
          format: format ?? "segments",
          ...(chunk_size === undefined ? {} : { chunkSize: chunk_size }),
          ...(timed === true ? { words: true } : {}),
        };
        if (timed === true) requireWordTimes(rendering.format, "/query/words");
        const found = await library.find(auth.accountId, id).catch((cause: unknown) => {
          throw storeUnreachable(cause);
        });
        if (!found) throw notInLibrary(id);
        await admitWeight(deps, res, readWeight(found.size), "Reading this transcript");
        const read = await library.words(found).catch((cause: unknown) => {
          throw storeUnreachable(cause);
        });
        if (!read) throw notInLibrary(id);
        const { stored, words } = read;
        const data = { kind: "library_transcript" as const, ...stored.entry };
        // As for `POST /transcripts/video`, `usage.bytes` counts the words returned, whatever the format.
        const usage = usageBlock(0, auth.credits, stored.size.textBytes);
        if (rendersInline(stored.size)) {
          sendOk(res, "getLibraryTranscript", 200, {
            data: { ...data, ...renderTranscript(segmentsOf(words), rendering) },
            usage,
          });
          return;
        }
        const renderings = await deps.services.renderer.render({ words, request: rendering });
        sendOkRendered(res, "getLibraryTranscript", 200, { data, usage }, renderings);
      },
    },
  ];
}

/** Another account's entry is as unknown as a missing one. */
function notInLibrary(id: string): ApiError {
  return new ApiError("not_found", `No transcript ${id} in this account's library.`);
}
