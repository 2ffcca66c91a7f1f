import type { ErrorCode } from "@verbatim/contract";
import { ApiError } from "../../errors.ts";
import { SourceError, type SourceErrorKind } from "../../sources/source-error.ts";

/** The endpoint that lists what a `listing` failure names. */
const listingEndpoint = "/api/v2/transcripts/channel";

/** The endpoint that reads the item an `item_not_list` failure names. */
const videoEndpoint = "/api/v2/transcripts/video";

/** Where a live stream is transcribed as it plays (docs/decisions.md, rule 16): what `live_stream` names. */
export const liveEndpoint = "/api/v2/live";

/** The kinds that are `podcast_feed_not_found`, each its `details.reason`. */
const feedKinds: ReadonlySet<SourceErrorKind> = new Set([
  "no_public_feed",
  "episode_not_in_feed",
  "no_feed_link",
  "not_a_feed",
  "feed_unreadable",
]);

/** The kinds whose failure speech recognition makes up for: answered with `retry_with` mode audio. */
const captionlessKinds: ReadonlySet<SourceErrorKind> = new Set(["no_captions", "captions_disabled"]);

/** The catalog code of each kind; transient ones (5xxx) tell the client to retry. */
const codeOfKind: Record<SourceErrorKind, ErrorCode> = {
  unsupported: "unsupported_platform",
  invalid_input: "invalid_input",
  listing: "invalid_input",
  no_public_feed: "podcast_feed_not_found",
  episode_not_in_feed: "podcast_feed_not_found",
  private: "private",
  login_required: "private",
  unavailable: "unavailable",
  members_only: "members_only",
  age_restricted: "age_restricted",
  region_blocked: "region_blocked",
  live_stream: "live_stream",
  was_live: "was_live",
  no_captions: "no_captions",
  captions_disabled: "captions_disabled",
  translation_unavailable: "translation_unavailable",
  no_audio_stream: "no_audio_stream",
  blocked: "upstream_error",
  failed: "upstream_error",
  timeout: "timeout",
  connection: "connection",
  unparseable: "parse_error",
  too_large: "invalid_input",
  media_too_large: "audio_ineligible",
  item_not_list: "endpoint_platform_mismatch",
  no_feed_link: "podcast_feed_not_found",
  not_a_feed: "podcast_feed_not_found",
  feed_unreadable: "podcast_feed_not_found",
  not_live: "invalid_input",
};

/** What a client is told beyond the source's own words, by kind, unless the failure says otherwise. */
const adviceOfKind: Partial<Record<SourceErrorKind, string>> = {
  login_required: "The platform shows it to signed-in accounts only, and Verbatim does not sign in.",
  blocked: "Nothing was charged; retry with backoff, or route requests through VERBATIM_PROXY_URLS.",
  timeout: "Nothing was charged; retry with backoff.",
  connection: "Nothing was charged; retry with backoff.",
  unparseable: "Nothing was charged; the platform may have changed what it serves.",
  translation_unavailable: "Nothing was charged.",
};

/**
 * The API error a failure answers: the one place a source's or an adapter's failure
 * (`SourceError`) becomes the catalog's code, status, number and extra. An `ApiError` passes
 * unchanged; anything else is no failure of ours to answer, and is thrown again.
 */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (!(error instanceof SourceError)) throw error;
  const advice = error.advice === undefined ? adviceOfKind[error.kind] : error.advice;
  const message = advice ? `${error.message} ${advice}` : error.message;
  const code = codeOfKind[error.kind];
  if (captionlessKinds.has(error.kind)) {
    return new ApiError(code, message, { extra: { retry_with: { mode: "audio" } }, cause: error });
  }
  if (error.kind === "translation_unavailable") {
    return new ApiError(code, message, { extra: { retry_with: { translate_to: [...error.available] } }, cause: error });
  }
  if (error.kind === "listing") {
    return new ApiError(code, message, { extra: { retry_with: { endpoint: listingEndpoint } }, cause: error });
  }
  if (error.kind === "live_stream") {
    return new ApiError(code, message, { extra: { retry_with: { endpoint: liveEndpoint } }, cause: error });
  }
  if (error.kind === "not_live" || error.kind === "item_not_list") {
    return new ApiError(code, message, { extra: { retry_with: { endpoint: videoEndpoint } }, cause: error });
  }
  if (feedKinds.has(error.kind)) {
    const candidates = error.candidates.length > 0 ? { candidates: [...error.candidates] } : {};
    return new ApiError(code, message, { extra: { details: { reason: error.kind, ...candidates } }, cause: error });
  }
  return new ApiError(code, message, { cause: error });
}

/** Whether `toApiError` answers the error: ours (`ApiError`) or a source's (`SourceError`). */
export function isAnswerable(error: unknown): error is ApiError | SourceError {
  return error instanceof ApiError || error instanceof SourceError;
}

/** 422 `translation_unavailable`, naming the languages `translate_to` may ask of this item instead. */
export function translationUnavailable(message: string, available: readonly string[]): ApiError {
  return toApiError(new SourceError("translation_unavailable", message, { available }));
}
