/** Why a call to YouTube failed; each maps to one API error code in the transcript service. */
export type UpstreamFailureKind =
  /** YouTube answered but refused us: a bot check, a consent wall, a 429 or another block. */
  | "blocked"
  /** No answer within the time allowed. */
  | "timeout"
  /** The connection failed (refused, reset, DNS, proxy). */
  | "connection"
  /** An answer we could not read. */
  | "unparseable"
  /** YouTube failed on its side (5xx after retries). */
  | "failed";

/** A failure of the YouTube transport, below any content decision. */
export class UpstreamError extends Error {
  constructor(
    readonly kind: UpstreamFailureKind,
    message: string,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "UpstreamError";
  }
}

/** What YouTube said about the video itself; each reason is an API error code of the content family. */
export type VideoFailureReason =
  | "private"
  | "unavailable"
  | "members_only"
  | "age_restricted"
  | "region_blocked"
  | "live_stream"
  | "was_live"
  | "no_captions"
  | "captions_disabled";

/** The video cannot give a transcript, for a reason YouTube stated. */
export class VideoUnavailableError extends Error {
  constructor(
    readonly reason: VideoFailureReason,
    message: string,
  ) {
    super(message);
    this.name = "VideoUnavailableError";
  }
}

/** The captions cannot be translated into the language asked for; `available` lists the languages they can. */
export class TranslationUnavailableError extends Error {
  constructor(
    message: string,
    readonly available: readonly string[],
  ) {
    super(message);
    this.name = "TranslationUnavailableError";
  }
}
