import type { RequestBody } from "@verbatim/contract";
import { usageBlock } from "../../services/accounts/index.ts";
import type { VideoMetadataReader } from "../../services/transcripts/index.ts";
import type { AppDeps } from "../app-deps.ts";
import { settlementOf } from "../idempotency.ts";
import { authOf, requestIdOf } from "../locals.ts";
import { bodyOf, type LiveRoute, sendOk } from "../route.ts";

/**
 * `POST /videos/metadata`: an item's metadata, 1 credit once read, nothing when it fails; on the
 * request allowance, holding an extraction slot like a list page, since it fetches from the
 * platform.
 */
export function getVideoMetadata(_deps: AppDeps, metadata: VideoMetadataReader): LiveRoute {
  return {
    operationId: "getVideoMetadata",
    holdsExtractionSlot: true,
    handler: async (req, res) => {
      const body = bodyOf<RequestBody<"getVideoMetadata">>(req);
      const auth = authOf(res);
      const settlement = settlementOf(res);
      const read = await metadata.read({
        video: body.video,
        accountId: auth.accountId,
        balance: auth.credits,
        requestId: requestIdOf(res),
        ...(settlement ? { settlement } : {}),
      });
      sendOk(res, "getVideoMetadata", 200, {
        data: read.metadata,
        usage: usageBlock(read.creditsSpent, read.balance, 0),
      });
    },
  };
}
