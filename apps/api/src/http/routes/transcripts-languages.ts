import type { RequestBody } from "@verbatim/contract";
import { usageBlock } from "../../services/accounts/index.ts";
import type { CaptionLanguageLists } from "../../services/transcripts/index.ts";
import type { AppDeps } from "../app-deps.ts";
import { authOf } from "../locals.ts";
import { bodyOf, type LiveRoute, sendOk } from "../route.ts";

/**
 * `POST /transcripts/languages`: a source's caption tracks and the languages `translate_to` can
 * ask of each. Free, on the request allowance; it holds an extraction slot like the list
 * routes, since it fetches from YouTube or the platform.
 */
export function listTranscriptLanguages(_deps: AppDeps, languages: CaptionLanguageLists): LiveRoute {
  return {
    operationId: "listTranscriptLanguages",
    holdsExtractionSlot: true,
    handler: async (req, res) => {
      const body = bodyOf<RequestBody<"listTranscriptLanguages">>(req);
      const auth = authOf(res);
      const data = await languages.list(body.video, auth.accountId);
      sendOk(res, "listTranscriptLanguages", 200, {
        data,
        usage: usageBlock(0, auth.credits),
      });
    },
  };
}
