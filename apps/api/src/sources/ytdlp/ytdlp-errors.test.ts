import { describe, expect, it } from "vitest";
import { SourceError, type SourceErrorKind } from "../source-error.ts";
import { sourceErrorOfYtdlp, YtdlpError, type YtdlpErrorDetails } from "./ytdlp-errors.ts";

/**
 * What sidecar.py answered for failures of yt-dlp 2026.8.19, by the extractor whose raise site
 * produced it (the message text is the extractor's own, with the "[name] id: " prefix and the
 * login hint `raise_login_required` adds): each raise site was run inside a real YoutubeDL
 * extraction and the answer copied here.
 */
const extractorFailures: [SourceErrorKind, string, YtdlpErrorDetails][] = [
  [
    "private",
    "TikTok",
    {
      type: "ExtractorError",
      cause: null,
      status: null,
      message:
        "[TikTok] 7468090902816017671: You do not have permission to view this post. Log into an account that has access. Use --cookies-from-browser or --cookies for the authentication. See  https://github.com/yt-dlp/yt-dlp/wiki/FAQ#how-do-i-pass-cookies-to-yt-dlp  for how to manually pass cookies",
      expected: true,
    },
  ],
  [
    "blocked",
    "TikTok",
    {
      type: "ExtractorError",
      cause: null,
      status: null,
      message: "[TikTok] 7468090902816017671: Your IP address is blocked from accessing this post",
      expected: true,
    },
  ],
  [
    "unavailable",
    "TikTok",
    {
      type: "ExtractorError",
      cause: null,
      status: null,
      message: "[TikTok] 7468090902816017671: Video not available, status code 10231",
      expected: false,
    },
  ],
  [
    "blocked",
    "TikTok",
    {
      type: "ExtractorError",
      cause: null,
      status: null,
      message: "[TikTok] 7468090902816017671: Unable to solve JS challenge",
      expected: false,
    },
  ],
  [
    "unparseable",
    "TikTok",
    {
      type: "ExtractorError",
      cause: null,
      status: null,
      message: "[TikTok] 7468090902816017671: Unable to extract universal data for rehydration",
      expected: false,
    },
  ],
  [
    "private",
    "Instagram",
    {
      type: "ExtractorError",
      cause: null,
      status: null,
      message:
        "[Instagram] aye83DjauH: This content is only available for registered users who follow this account. Use --cookies-from-browser or --cookies for the authentication. See  https://github.com/yt-dlp/yt-dlp/wiki/FAQ#how-do-i-pass-cookies-to-yt-dlp  for how to manually pass cookies",
      expected: true,
    },
  ],
  [
    "blocked",
    "Instagram",
    {
      type: "ExtractorError",
      cause: null,
      status: null,
      message:
        "[Instagram] aye83DjauH: The webpage request was redirected to the login page. You have exceeded the rate-limit for accessing posts anonymously. Use --cookies-from-browser or --cookies for the authentication. See  https://github.com/yt-dlp/yt-dlp/wiki/FAQ#how-do-i-pass-cookies-to-yt-dlp  for how to manually pass cookies",
      expected: true,
    },
  ],
  [
    "age_restricted",
    "Instagram",
    {
      type: "ExtractorError",
      cause: null,
      status: null,
      message:
        "[Instagram] aye83DjauH: Restricted Video: You must be 18 years old or over to see this video. Use --cookies-from-browser or --cookies for the authentication. See  https://github.com/yt-dlp/yt-dlp/wiki/FAQ#how-do-i-pass-cookies-to-yt-dlp  for how to manually pass cookies",
      expected: true,
    },
  ],
  [
    "no_audio_stream",
    "Instagram",
    {
      type: "ExtractorError",
      cause: null,
      status: null,
      message: "[Instagram] aye83DjauH: There is no video in this post",
      expected: true,
    },
  ],
  [
    "age_restricted",
    "Twitter",
    {
      type: "ExtractorError",
      cause: null,
      status: null,
      message:
        "[twitter] 1620000000000000000: NSFW tweet requires authentication. Use --cookies-from-browser or --cookies for the authentication. See  https://github.com/yt-dlp/yt-dlp/wiki/FAQ#how-do-i-pass-cookies-to-yt-dlp  for how to manually pass cookies",
      expected: true,
    },
  ],
  [
    "private",
    "Twitter",
    {
      type: "ExtractorError",
      cause: null,
      status: null,
      message:
        "[twitter] 1620000000000000000: You are not authorized to view this protected tweet. Use --cookies-from-browser or --cookies for the authentication. See  https://github.com/yt-dlp/yt-dlp/wiki/FAQ#how-do-i-pass-cookies-to-yt-dlp  for how to manually pass cookies",
      expected: true,
    },
  ],
  [
    "unavailable",
    "Twitter",
    {
      type: "ExtractorError",
      cause: null,
      status: null,
      message: "[twitter] 1620000000000000000: Requested tweet is unavailable",
      expected: true,
    },
  ],
  [
    "no_audio_stream",
    "Twitter",
    {
      type: "ExtractorError",
      cause: null,
      status: null,
      message: "[twitter] 1620000000000000000: No video could be found in this tweet",
      expected: true,
    },
  ],
  [
    "region_blocked",
    "Twitter",
    {
      type: "GeoRestrictedError",
      cause: null,
      status: null,
      message: "[twitter] 1620000000000000000: This video is not available from your location due to geo restriction",
      expected: true,
    },
  ],
  [
    "private",
    "Vimeo",
    {
      type: "ExtractorError",
      cause: null,
      status: null,
      message: "[vimeo] 76979871: This video is protected by a password, use the --video-password option",
      expected: true,
    },
  ],
  [
    "blocked",
    "Vimeo",
    {
      type: "ExtractorError",
      cause: null,
      status: null,
      message:
        "[vimeo] 76979871: Got HTTP Error 403. If you are using a data center IP or VPN/proxy, your IP may be blocked",
      expected: true,
    },
  ],
  [
    "login_required",
    "Vimeo",
    {
      type: "ExtractorError",
      cause: null,
      status: null,
      message:
        "[vimeo] 76979871: Authentication may be needed due to your location.. Use --cookies, --cookies-from-browser, --username and --password, --netrc-cmd, or --netrc (vimeo) to provide account credentials. See  https://github.com/yt-dlp/yt-dlp/wiki/FAQ#how-do-i-pass-cookies-to-yt-dlp  for how to manually pass cookies",
      expected: true,
    },
  ],
  [
    "unavailable",
    "Facebook",
    {
      type: "ExtractorError",
      cause: null,
      status: null,
      message:
        '[facebook] 10153231379946729: The video is not available, Facebook said: "This content isn\'t available right now"',
      expected: true,
    },
  ],
  [
    "login_required",
    "Facebook",
    {
      type: "ExtractorError",
      cause: null,
      status: null,
      message:
        "[facebook] 10153231379946729: This video is only available for registered users. Use --cookies-from-browser or --cookies for the authentication. See  https://github.com/yt-dlp/yt-dlp/wiki/FAQ#how-do-i-pass-cookies-to-yt-dlp  for how to manually pass cookies",
      expected: true,
    },
  ],
  [
    "unparseable",
    "Facebook",
    {
      type: "ExtractorError",
      cause: null,
      status: null,
      message: "[facebook] 10153231379946729: Cannot parse data",
      expected: false,
    },
  ],
  [
    "region_blocked",
    "Dailymotion",
    {
      type: "GeoRestrictedError",
      cause: null,
      status: null,
      message: "[dailymotion] x5kesuj: This video is not available in your country.",
      expected: true,
    },
  ],
  [
    "unavailable",
    "Dailymotion",
    {
      type: "ExtractorError",
      cause: null,
      status: null,
      message: "[dailymotion] x5kesuj: dailymotion said: Video not found.",
      expected: true,
    },
  ],
  [
    "private",
    "Dailymotion",
    {
      type: "ExtractorError",
      cause: null,
      status: null,
      message: "[dailymotion] x5kesuj: dailymotion said: This video is private.",
      expected: true,
    },
  ],
  [
    "unavailable",
    "TwitchVod",
    {
      type: "ExtractorError",
      cause: null,
      status: null,
      message: "[twitch:vod] 6528877: Video 6528877 does not exist",
      expected: true,
    },
  ],
  [
    "members_only",
    "TwitchVod",
    {
      type: "ExtractorError",
      cause: null,
      status: null,
      message:
        "[twitch:vod] 6528877: You must be logged into an account that has access to this subscriber-only content. Use --cookies, --cookies-from-browser, --username and --password, --netrc-cmd, or --netrc (twitch) to provide account credentials. See  https://github.com/yt-dlp/yt-dlp/wiki/FAQ#how-do-i-pass-cookies-to-yt-dlp  for how to manually pass cookies",
      expected: true,
    },
  ],
  [
    "unavailable",
    "TwitchClips",
    {
      type: "ExtractorError",
      cause: null,
      status: null,
      message: "[twitch:clips] FaintLightGullWholeWheat: This clip is no longer available",
      expected: true,
    },
  ],
  [
    "private",
    "Loom",
    {
      type: "ExtractorError",
      cause: null,
      status: null,
      message:
        "[loom] 43d05f362f734614a2e81b4694a3a523: This video is password-protected, use the --video-password option",
      expected: true,
    },
  ],
  [
    "connection",
    "Loom",
    {
      type: "ExtractorError",
      cause: "TransportError",
      status: null,
      message:
        "[loom] x: Unable to download JSON metadata: [Errno 111] Connection refused (caused by TransportError('[Errno 111] Connection refused'))",
      expected: true,
    },
  ],
];

/** Answers of the real sidecar for HTTP and network failures of the Streamable extractor (test/ytdlp). */
const transportFailures: [SourceErrorKind, YtdlpErrorDetails][] = [
  [
    "blocked",
    {
      type: "ExtractorError",
      cause: "HTTPError",
      status: 403,
      message:
        "[Streamable] s403: Unable to download JSON metadata: HTTP Error 403: Forbidden (caused by <HTTPError 403: Forbidden>)",
      expected: true,
    },
  ],
  [
    "blocked",
    {
      type: "ExtractorError",
      cause: "HTTPError",
      status: 429,
      message:
        "[Streamable] s429: Unable to download JSON metadata: HTTP Error 429: Too Many Requests (caused by <HTTPError 429: Too Many Requests>)",
      expected: true,
    },
  ],
  [
    "connection",
    {
      type: "ExtractorError",
      cause: "HTTPError",
      status: 500,
      message:
        "[Streamable] s500: Unable to download JSON metadata: HTTP Error 500: Internal Server Error (caused by <HTTPError 500: Internal Server Error>)",
      expected: true,
    },
  ],
  [
    "unavailable",
    {
      type: "ExtractorError",
      cause: "HTTPError",
      status: 410,
      message:
        "[Streamable] s410: Unable to download JSON metadata: HTTP Error 410: Gone (caused by <HTTPError 410: Gone>)",
      expected: true,
    },
  ],
  [
    "unavailable",
    {
      type: "ExtractorError",
      cause: "HTTPError",
      status: 404,
      message:
        "[Streamable] nothere: Unable to download JSON metadata: HTTP Error 404: Not Found (caused by <HTTPError 404: Not Found>)",
      expected: true,
    },
  ],
  [
    "timeout",
    {
      type: "ExtractorError",
      cause: "TransportError",
      status: null,
      message:
        "[Streamable] hang: Unable to download JSON metadata: The read operation timed out (caused by TransportError('The read operation timed out'))",
      expected: true,
    },
  ],
  [
    "connection",
    {
      type: "ExtractorError",
      cause: "TransportError",
      status: null,
      message:
        "[Streamable] dns: Unable to download JSON metadata: [Errno -2] Name or service not known (caused by TransportError('[Errno -2] Name or service not known'))",
      expected: true,
    },
  ],
  [
    "connection",
    {
      type: "ExtractorError",
      cause: "TransportError",
      status: null,
      message:
        "[Streamable] refused: Unable to download JSON metadata: [Errno 111] Connection refused (caused by TransportError('[Errno 111] Connection refused'))",
      expected: true,
    },
  ],
  [
    "connection",
    {
      type: "TransportError",
      cause: "ConnectionRefusedError",
      status: null,
      message: "[Errno 111] Connection refused",
      expected: false,
    },
  ],
  [
    "unsupported",
    {
      type: "UnsupportedError",
      cause: null,
      status: null,
      message: "Unsupported URL: https://example.com/page",
      expected: true,
    },
  ],
];

/** The sidecar's own refusals (sidecar.py) and yt-dlp's when no allowed extractor matches. */
const sidecarFailures: [SourceErrorKind, YtdlpErrorDetails][] = [
  [
    "unsupported",
    {
      type: "ExtractorNotAllowed",
      cause: null,
      status: null,
      message: "The Generic extractor is not allowed on this server",
      expected: true,
    },
  ],
  [
    "unsupported",
    {
      type: "DownloadError",
      cause: null,
      status: null,
      message: "No suitable extractor found for URL https://example.com/",
      expected: false,
    },
  ],
  [
    "too_large",
    {
      type: "FileTooLarge",
      cause: null,
      status: null,
      message: "The media is larger than 100000 bytes",
      expected: true,
    },
  ],
  [
    "live_stream",
    {
      type: "LiveStream",
      cause: null,
      status: null,
      message: "[TwitchVod] v1: The item is live now; there is no recording yet",
      expected: true,
    },
  ],
  ["unparseable", { type: "KeyError", cause: null, status: null, message: "'formats'", expected: false }],
];

describe("sourceErrorOfYtdlp", () => {
  it.each(extractorFailures)("reads %s from %s's message %#", (kind, _extractor, details) => {
    const error = sourceErrorOfYtdlp(details);
    expect(error).toBeInstanceOf(SourceError);
    expect(error.kind, details.message).toBe(kind);
  });

  it.each(transportFailures)("reads %s from an HTTP or network failure %#", (kind, details) => {
    expect(sourceErrorOfYtdlp(details).kind, details.message).toBe(kind);
  });

  it.each(sidecarFailures)("reads %s from the sidecar's own failure %#", (kind, details) => {
    expect(sourceErrorOfYtdlp(details).kind, details.message).toBe(kind);
  });

  it("tells the client yt-dlp's words without its command-line advice, and keeps the details as the cause", () => {
    const details = extractorFailures[0]?.[2] as YtdlpErrorDetails;
    const error = sourceErrorOfYtdlp(details);
    expect(error.message).toBe(
      "[TikTok] 7468090902816017671: You do not have permission to view this post. Log into an account that has access",
    );
    expect(error.cause).toBeInstanceOf(YtdlpError);
    expect((error.cause as YtdlpError).details).toEqual(details);
  });

  it.each([
    [
      "OpenSSL's, behind a proxy that tunnelled to a port without TLS",
      {
        type: "SSLError",
        cause: "SSLError",
        status: null,
        message: "[SSL: WRONG_VERSION_NUMBER] wrong version number (_ssl.c:1006)",
        expected: false,
      },
      "connection",
      "The connection to the platform failed.",
    ],
    [
      "a proxy's status line",
      {
        type: "ProxyError",
        cause: "URLError",
        status: null,
        message: "<urlopen error Tunnel connection failed: 403 Forbidden>",
        expected: false,
      },
      "connection",
      "The connection to the platform failed.",
    ],
    [
      "a server's status line, inside an extractor's download",
      transportFailures[0]?.[1] as YtdlpErrorDetails,
      "blocked",
      "The platform refused the request (HTTP 403).",
    ],
    [
      "a server's status line, for a caption file",
      { type: "HTTPError", cause: "HTTPError", status: 404, message: "HTTP Error 404: Not Found", expected: false },
      "unavailable",
      "The platform has no such item (HTTP 404).",
    ],
    [
      "a fault of yt-dlp's",
      { type: "KeyError", cause: null, status: null, message: "'formats'", expected: false },
      "unparseable",
      "yt-dlp could not read the platform's answer. Upgrading yt-dlp may help.",
    ],
  ] as [string, YtdlpErrorDetails, SourceErrorKind, string][])(
    "tells the client its own words, not %s, and keeps those as the cause",
    (_words, details, kind, message) => {
      const error = sourceErrorOfYtdlp(details);
      expect([error.kind, error.message]).toEqual([kind, message]);
      expect((error.cause as YtdlpError).details).toEqual(details);
    },
  );
});
