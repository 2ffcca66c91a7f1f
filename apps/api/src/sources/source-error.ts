import type { ErrorCode } from "@verbatim/contract";
import { ApiError } from "../errors.ts";

/**
 * Why a platform source could not answer, whichever platform and engine. Every source throws
 * these; `apiErrorOf` is the one place they become the catalog's codes.
 */
export type SourceErrorKind =
  /** The address is on no platform this server reads, or is a kind of page it does not read (a profile, a story). */
  | "unsupported"
  /** The address names an item, but malformed (a bad id, a shortcode that does not decode). */
  | "invalid_input"
  /** The address names a list of items (a podcast show, a profile) where one item is needed. */
  | "listing"
  /** The show has no public feed to read its episodes from: it is exclusive to the platform. */
  | "no_public_feed"
  /** The show's feed lists no episode that is the one named. */
  | "episode_not_in_feed"
  /** Visible only to its owner or to accounts it chose. */
  | "private"
  /** Visible only to signed-in accounts; this server never signs in. */
  | "login_required"
  /** Deleted, removed or never there. */
  | "unavailable"
  /** For paying subscribers only. */
  | "members_only"
  /** Behind an age or sensitive-content gate. */
  | "age_restricted"
  /** Not offered in the country the request leaves from. */
  | "region_blocked"
  /** Live right now; nothing is recorded yet. */
  | "live_stream"
  /** The platform has no captions for it (asked for captions only). */
  | "no_captions"
  /** The item has no sound to transcribe. */
  | "no_audio_stream"
  /** The platform refused us: a bot check, a challenge, a 403 or 429 of its own. */
  | "blocked"
  /** No answer within the time allowed. */
  | "timeout"
  /** No connection: refused, reset, DNS, or no network at all. */
  | "connection"
  /** An answer we could not read: the platform changed its page or API. */
  | "unparseable"
  /** The media is larger than this server downloads. */
  | "too_large"
  /** The address names one item (a video, a post, an episode), not the list a list request wants: the video endpoint reads it. */
  | "item_not_list"
  /** A page that links to no feed, where a feed was wanted. */
  | "no_feed_link"
  /** A document that is no RSS or Atom feed (nor a page that links to one), or feeds a page links to that are none. */
  | "not_a_feed"
  /** A feed that could not be fetched or parsed. */
  | "feed_unreadable"
  /** A live session was asked of a recording, or of an address that streams nothing: the video endpoint reads a recording. */
  | "not_live"
  /** A live session was asked of a broadcast that is over. */
  | "was_live";

/** A platform source's failure, in platform-neutral terms. */
export class SourceError extends Error {
  /** The feeds that came nearest or were tried, for the kinds of `podcast_feed_not_found`: what the client may try. */
  readonly candidates: readonly string[];

  constructor(
    readonly kind: SourceErrorKind,
    message: string,
    options: { cause?: unknown; candidates?: readonly string[] } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "SourceError";
    this.candidates = options.candidates ?? [];
  }
}

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
  no_captions: "no_captions",
  no_audio_stream: "no_audio_stream",
  blocked: "upstream_error",
  timeout: "timeout",
  connection: "connection",
  unparseable: "parse_error",
  too_large: "invalid_input",
  item_not_list: "endpoint_platform_mismatch",
  no_feed_link: "podcast_feed_not_found",
  not_a_feed: "podcast_feed_not_found",
  feed_unreadable: "podcast_feed_not_found",
  not_live: "invalid_input",
  was_live: "was_live",
};

/** What a client is told beyond the source's own words, by kind. */
const adviceOfKind: Partial<Record<SourceErrorKind, string>> = {
  login_required: "The platform shows it to signed-in accounts only, and Verbatim does not sign in.",
  blocked: "Nothing was charged; retry with backoff, or route requests through VERBATIM_PROXY_URLS.",
  timeout: "Nothing was charged; retry with backoff.",
  connection: "Nothing was charged; retry with backoff.",
  unparseable: "Nothing was charged; the platform may have changed what it serves.",
};

/** The API error a source failure answers; anything else passes through unchanged. */
export function apiErrorOf(error: unknown): unknown {
  if (!(error instanceof SourceError)) return error;
  const advice = adviceOfKind[error.kind];
  const message = advice ? `${error.message} ${advice}` : error.message;
  if (error.kind === "no_captions") {
    return new ApiError("no_captions", message, { extra: { retry_with: { mode: "audio" } }, cause: error });
  }
  if (error.kind === "listing") {
    return new ApiError("invalid_input", message, {
      extra: { retry_with: { endpoint: listingEndpoint } },
      cause: error,
    });
  }
  if (error.kind === "live_stream") {
    return new ApiError("live_stream", message, { extra: { retry_with: { endpoint: liveEndpoint } }, cause: error });
  }
  if (error.kind === "not_live") {
    return new ApiError("invalid_input", message, { extra: { retry_with: { endpoint: videoEndpoint } }, cause: error });
  }
  if (error.kind === "item_not_list") {
    return new ApiError(codeOfKind[error.kind], message, {
      extra: { retry_with: { endpoint: videoEndpoint } },
      cause: error,
    });
  }
  if (feedKinds.has(error.kind)) {
    const candidates = error.candidates.length > 0 ? { candidates: [...error.candidates] } : {};
    return new ApiError("podcast_feed_not_found", message, {
      extra: { details: { reason: error.kind, ...candidates } },
      cause: error,
    });
  }
  return new ApiError(codeOfKind[error.kind], message, { cause: error });
}
