import { SourceError, type SourceErrorKind } from "../source-error.ts";

/** A failure as the sidecar (sidecar.py) describes it. */
export interface YtdlpErrorDetails {
  /**
   * The Python exception's class: the extractor's own error when yt-dlp wrapped it in a
   * DownloadError (ExtractorError, GeoRestrictedError, UnsupportedError, ...), or the sidecar's
   * (ExtractorNotAllowed, FileTooLarge, LiveStream, CallCancelled).
   */
  type: string;
  /** The class of that exception's cause (HTTPError, TransportError, ...), if any. */
  cause: string | null;
  /** The HTTP status of an HTTPError in the cause chain. */
  status: number | null;
  /** yt-dlp's message, with its "[extractor] id: " prefix. */
  message: string;
  /** Whether yt-dlp expected it (a platform's answer rather than a fault of yt-dlp). */
  expected: boolean;
}

/** The sidecar's error, kept as the cause of the SourceError it maps to. */
export class YtdlpError extends Error {
  readonly details: YtdlpErrorDetails;

  constructor(details: YtdlpErrorDetails) {
    super(details.message);
    this.name = "YtdlpError";
    this.details = details;
  }
}

interface Rule {
  kind: SourceErrorKind;
  matches(details: YtdlpErrorDetails): boolean;
}

const byType =
  (...types: string[]) =>
  (details: YtdlpErrorDetails) =>
    types.includes(details.type);
const byMessage = (pattern: RegExp) => (details: YtdlpErrorDetails) => pattern.test(details.message);
const byStatus = (test: (status: number) => boolean) => (details: YtdlpErrorDetails) =>
  details.status !== null && test(details.status);

/** Exceptions of Python and yt-dlp that mean the request never got an answer. */
const networkTypes = [
  "TransportError",
  "ProxyError",
  "SSLError",
  "CertificateVerifyError",
  "IncompleteRead",
  "URLError",
  "ConnectionError",
  "ConnectionRefusedError",
  "ConnectionResetError",
  "RemoteDisconnected",
  "gaierror",
  "TimeoutError",
  "timeout",
];

/**
 * First match wins, so the order matters: yt-dlp words many refusals as "log in" (every
 * `raise_login_required` ends with its cookies hint), so the specific readings (age, private,
 * rate limit) come before the login one, and HTTP statuses after the platforms' own words. The
 * messages are yt-dlp 2026.8.19's, quoted in ytdlp-errors.test.ts with the extractor they come from.
 */
const rules: Rule[] = [
  { kind: "unsupported", matches: byType("UnsupportedError", "ExtractorNotAllowed") },
  { kind: "unsupported", matches: byMessage(/No suitable extractor|Unsupported URL|is not allowed on this server/i) },
  { kind: "too_large", matches: byType("FileTooLarge") },
  { kind: "live_stream", matches: byType("LiveStream") },
  {
    kind: "live_stream",
    matches: byMessage(
      /\b(?:has not (?:yet )?started|not started yet|live event will begin|is live now|is currently live)/i,
    ),
  },
  { kind: "region_blocked", matches: byType("GeoRestrictedError") },
  {
    kind: "region_blocked",
    matches: byMessage(
      /\bgeo[- ]?restrict|\bgeo-?blocked|restricted in (?:your )?region|not available (?:from|in) your (?:location|country|region)/i,
    ),
  },
  {
    kind: "age_restricted",
    matches: byMessage(/\bage[- ]?(?:restricted|gate)|confirm your age|\bNSFW\b|Restricted Video|years old or over/i),
  },
  {
    kind: "members_only",
    matches: byMessage(/subscriber-only|members[- ]only|only available (?:to|for) (?:paid|premium)/i),
  },
  {
    kind: "private",
    matches: byMessage(
      /\bprivate\b|do not have permission to view this post|protected tweet|registered users who follow this account|protected by a password|password-protected/i,
    ),
  },
  {
    kind: "blocked",
    matches: byMessage(
      /rate[- ]?limit|too many requests|captcha|\bchallenge\b|IP address is blocked|blocked due to its TLS fingerprint|data center IP|Fresh cookies .*are needed|HTTP Error (?:403|429)\b/i,
    ),
  },
  {
    kind: "login_required",
    matches: byMessage(/\blog ?in\b|logged[- ]in|registered users|requires authentication|--cookies/i),
  },
  {
    kind: "unavailable",
    matches: byMessage(
      /\bnot found\b|\bremoved\b|\bdeleted\b|does not exist|no longer (?:exists|available)|\bunavailable\b|\bnot available\b|HTTP Error (?:404|410)\b/i,
    ),
  },
  { kind: "unavailable", matches: byStatus((status) => status === 404 || status === 410) },
  { kind: "blocked", matches: byStatus((status) => status === 403 || status === 429) },
  { kind: "no_audio_stream", matches: byMessage(/no video in this post|No video could be found|not a video\b/i) },
  { kind: "timeout", matches: byMessage(/timed? ?out/i) },
  { kind: "timeout", matches: byType("TimeoutError", "timeout") },
  {
    kind: "connection",
    matches: (details) => networkTypes.includes(details.type) || networkTypes.includes(details.cause ?? ""),
  },
  {
    kind: "connection",
    matches: byMessage(
      /Connection (?:refused|reset|aborted)|Name or service not known|name resolution|getaddrinfo|Network is unreachable|No route to host|Remote end closed|Unable to connect to proxy/i,
    ),
  },
  // A platform's server error: worth retrying later, like a connection that failed.
  { kind: "connection", matches: byStatus((status) => status >= 500) },
];

/**
 * What a client is told of a failure that is not an extractor's reading of the item: a failed
 * exchange (TLS, a proxy, a socket, an HTTP status) or a fault of yt-dlp. Their text (OpenSSL's,
 * a proxy's status line, a traceback) would tell a client which hosts and ports answer behind
 * the proxy, so it goes to the log and these words to the client.
 */
const plainWords: Record<SourceErrorKind, string> = {
  unsupported: "This server reads no item at this address",
  invalid_input: "The platform refused the address",
  listing: "The address names a list of items, not one",
  no_public_feed: "The show has no public feed",
  episode_not_in_feed: "The show's feed lists no such episode",
  private: "The platform shows this item only to its owner or the accounts it chose",
  login_required: "The platform shows this item only to signed-in accounts",
  unavailable: "The platform has no such item",
  members_only: "The platform shows this item to paying subscribers only",
  age_restricted: "The platform keeps this item behind an age or sensitive-content gate",
  region_blocked: "The platform does not offer this item in the country the request leaves from",
  live_stream: "The item is live now; nothing is recorded yet",
  was_live: "The item is a past live stream without captions",
  no_captions: "The platform has no captions for this item",
  captions_disabled: "The item's captions are turned off",
  translation_unavailable: "The platform does not translate these captions",
  no_audio_stream: "The item has no sound to transcribe",
  blocked: "The platform refused the request",
  failed: "The platform failed to answer",
  timeout: "The platform did not answer in time",
  connection: "The connection to the platform failed",
  unparseable: "yt-dlp could not read the platform's answer",
  too_large: "The media is larger than this server downloads",
  media_too_large: "The media is larger than this server downloads",
  item_not_list: "The address names one item, not a list",
  no_feed_link: "The page links to no feed",
  not_a_feed: "The address is no feed",
  feed_unreadable: "The feed could not be read",
  not_live: "The item is not live",
};

/** The SourceError a sidecar failure means; anything not recognised is `unparseable`. */
export function sourceErrorOfYtdlp(details: YtdlpErrorDetails): SourceError {
  const kind = rules.find((rule) => rule.matches(details))?.kind ?? "unparseable";
  const words = isExtractorReading(details)
    ? publicMessage(details.message)
    : `${plainWords[kind]}${details.status === null ? "" : ` (HTTP ${details.status})`}.`;
  // yt-dlp follows the platforms' changes release by release: a newer one may read what this one cannot.
  const message = kind === "unparseable" ? `${words} Upgrading yt-dlp may help.` : words;
  return new SourceError(kind, message, { cause: new YtdlpError(details) });
}

/** An extractor's (or the sidecar's) own words about the item, raised as expected, with no failed exchange behind them. */
function isExtractorReading(details: YtdlpErrorDetails): boolean {
  return details.expected && details.cause === null && details.status === null && !networkTypes.includes(details.type);
}

/** yt-dlp's words without its command-line advice, which means nothing to an API client. */
function publicMessage(message: string): string {
  return message
    .replace(/\.?\s*(?:Use --cookies|Use --username|See {1,2}https:\/\/github\.com\/yt-dlp).*$/s, "")
    .replace(/\s*\(caused by .*\)$/s, "")
    .trim();
}
