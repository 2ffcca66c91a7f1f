import { SourceError } from "../../sources/source-error.ts";

/** Why a call to YouTube failed, below any content decision. */
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

/** What a client is told of any failure of the YouTube transport: none of them cost anything. */
const transportAdvice = "Nothing was charged; retry with backoff.";

/** A failure of the YouTube transport, below any content decision. */
export class UpstreamError extends SourceError {
  declare readonly kind: UpstreamFailureKind;

  constructor(
    kind: UpstreamFailureKind,
    message: string,
    readonly status?: number,
    options: { cause?: unknown } = {},
  ) {
    super(kind, message, { ...options, advice: transportAdvice });
    this.name = "UpstreamError";
  }
}

/** What YouTube said about the video itself. */
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
export class VideoUnavailableError extends SourceError {
  constructor(
    readonly reason: VideoFailureReason,
    message: string,
  ) {
    super(reason, message);
    this.name = "VideoUnavailableError";
  }
}
