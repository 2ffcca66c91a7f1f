/**
 * Why a platform source or an adapter could not answer, whichever platform and engine. Adapters
 * and sources throw these and nothing of the wire's; `toApiError` (services/failures/source-failures.ts)
 * is the one place they become the catalog's codes.
 */
export type SourceErrorKind =
  /** The address is on no platform this server reads, or is a kind of page it does not read (a profile, a story). */
  | "unsupported"
  /** The input names an item, but malformed (a bad id, a shortcode that does not decode), or media that cannot be read. */
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
  /** A past live stream that kept no captions. */
  | "was_live"
  /** The platform has no captions for it (asked for captions only). */
  | "no_captions"
  /** Its uploader turned captions off. */
  | "captions_disabled"
  /** The captions cannot be translated into the language asked for; `available` lists those they can. */
  | "translation_unavailable"
  /** The item has no sound to transcribe. */
  | "no_audio_stream"
  /** The platform refused us: a bot check, a challenge, a 403 or 429 of its own. */
  | "blocked"
  /** The platform failed on its side: a 5xx, an error status, a redirect loop. */
  | "failed"
  /** No answer within the time allowed. */
  | "timeout"
  /** No connection: refused, reset, DNS, or no network at all. */
  | "connection"
  /** An answer we could not read: the platform changed its page or API. */
  | "unparseable"
  /** A file larger than this server reads of its kind (a caption playlist, a yt-dlp download). */
  | "too_large"
  /** Media larger than this server downloads (`VERBATIM_DOWNLOAD_MAX_BYTES`), or than its caller allowed. */
  | "media_too_large"
  /** The address names one item (a video, a post, an episode), not the list a list request wants: the video endpoint reads it. */
  | "item_not_list"
  /** A page that links to no feed, where a feed was wanted. */
  | "no_feed_link"
  /** A document that is no RSS or Atom feed (nor a page that links to one), or feeds a page links to that are none. */
  | "not_a_feed"
  /** A feed that could not be fetched or parsed. */
  | "feed_unreadable"
  /** A live session was asked of a recording, or of an address that streams nothing: the video endpoint reads a recording. */
  | "not_live";

/** What a `SourceError` carries besides its kind and message. */
export interface SourceErrorOptions {
  cause?: unknown;
  /** The feeds that came nearest or were tried, for the kinds of a feed not found: what the client may try. */
  candidates?: readonly string[];
  /** For `translation_unavailable`: the languages the captions can be translated into. */
  available?: readonly string[];
  /**
   * What the client is told beyond the message: absent, what the kind's failures are usually
   * told (retry with backoff, …); null for a message that says all there is to say.
   */
  advice?: string | null;
}

/** A platform source's or an adapter's failure, in platform-neutral terms. */
export class SourceError extends Error {
  readonly candidates: readonly string[];
  readonly available: readonly string[];
  readonly advice: string | null | undefined;

  constructor(
    readonly kind: SourceErrorKind,
    message: string,
    options: SourceErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "SourceError";
    this.candidates = options.candidates ?? [];
    this.available = options.available ?? [];
    this.advice = options.advice;
  }
}
