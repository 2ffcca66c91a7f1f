import { UpstreamError, VideoUnavailableError } from "./upstream-errors.ts";

/** A caption track as the player response lists it. */
export interface CaptionTrack {
  /** BCP-47 language of the track. */
  language: string;
  /** `auto` for YouTube's speech recognition (`kind: "asr"`), `manual` for uploaded captions. */
  kind: "manual" | "auto";
  /** The track's display name ("English (auto-generated)"). */
  name: string;
  /** Where its body is served (`/api/timedtext?...`). */
  baseUrl: string;
  /** Whether YouTube translates it (`isTranslatable`): `&tlang=<code>` on `baseUrl` serves the translation. */
  translatable: boolean;
}

/** A language YouTube translates translatable tracks into (`translationLanguages`). */
export interface TranslationLanguage {
  languageCode: string;
  /** Its name in the session's language ("German"); null when YouTube gave none. */
  languageName: string | null;
}

/** What the player response tells about a video. */
export interface VideoDetails {
  videoId: string;
  title: string | null;
  channel: string | null;
  /** The description as the uploader wrote it (its chapters are timestamps in it). */
  description: string | null;
  durationSeconds: number | null;
  thumbnailUrl: string | null;
  /** Streaming now. */
  isLive: boolean;
  /** Streamed live once (now or before). */
  wasLive: boolean;
}

/** An audio-only stream the player response offers with a plain address (not a signature cipher). */
export interface AudioStream {
  /** The `googlevideo.com/videoplayback` address; it expires within hours and is bound to the client's IP. */
  url: string;
  itag: number;
  mimeType: string;
  /** Bits per second. */
  bitrate: number;
  /** Bytes; null when YouTube did not say. */
  contentLength: number | null;
}

/** A playable video and its caption tracks; `tracks` is null when the response has no `captions` object at all. */
export interface PlayableVideo {
  details: VideoDetails;
  tracks: CaptionTrack[] | null;
  /** The index in `tracks` YouTube would show first, when it says. */
  defaultTrackIndex: number | null;
  /** The languages translatable tracks can be translated into; empty when YouTube lists none. */
  translationLanguages: TranslationLanguage[];
  /** Audio-only streams of the original (default) audio track, without loudness-compressed variants, lowest bitrate first. */
  audioStreams: AudioStream[];
}

interface Text {
  simpleText?: string;
  runs?: Array<{ text?: string }>;
}

interface PlayerResponse {
  playabilityStatus?: { status?: string; reason?: string; errorScreen?: unknown };
  videoDetails?: {
    videoId?: string;
    title?: string;
    author?: string;
    shortDescription?: string;
    lengthSeconds?: string;
    isLive?: boolean;
    isLiveContent?: boolean;
    isUpcoming?: boolean;
    thumbnail?: { thumbnails?: Array<{ url?: string; width?: number }> };
  };
  streamingData?: { adaptiveFormats?: AdaptiveFormat[] };
  captions?: {
    playerCaptionsTracklistRenderer?: {
      captionTracks?: Array<{
        baseUrl?: string;
        languageCode?: string;
        kind?: string;
        name?: Text;
        isTranslatable?: boolean;
      }>;
      audioTracks?: Array<{ defaultCaptionTrackIndex?: number }>;
      translationLanguages?: Array<{ languageCode?: string; languageName?: Text }>;
    };
  };
}

interface AdaptiveFormat {
  itag?: number;
  url?: string;
  mimeType?: string;
  bitrate?: number;
  contentLength?: string;
  /** The dynamic-range-compressed copy of a stream. */
  isDrc?: boolean;
  /** Present when a video has several audio tracks (dubs); the original one is the default. */
  audioTrack?: { audioIsDefault?: boolean };
}

/** The text of a YouTube `Text` object (`simpleText` or `runs`). */
export function textOf(text: Text | undefined): string | null {
  if (!text) return null;
  if (text.simpleText !== undefined) return text.simpleText;
  if (text.runs) return text.runs.map((run) => run.text ?? "").join("");
  return null;
}

/**
 * Reads a `/youtubei/v1/player` answer: a playable video with its caption tracks, or the
 * failure YouTube states in `playabilityStatus`.
 */
export function readPlayerResponse(body: unknown, requestedVideoId: string): PlayableVideo {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new UpstreamError("unparseable", "The player response is not a JSON object.");
  }
  const response = body as PlayerResponse;
  const status = response.playabilityStatus?.status;
  // YouTube answers `{}` for ids that never existed.
  if (status === undefined) {
    throw new VideoUnavailableError("unavailable", `YouTube has no video ${requestedVideoId}.`);
  }
  const reason = response.playabilityStatus?.reason ?? "";
  if (status !== "OK") throw playabilityFailure(status, reason, requestedVideoId);
  const details = readDetails(response, requestedVideoId);
  if (details.isLive) {
    throw new VideoUnavailableError(
      "live_stream",
      `Video ${requestedVideoId} is streaming live; its transcript is available after the stream ends.`,
    );
  }
  const list = response.captions?.playerCaptionsTracklistRenderer;
  const tracks =
    list === undefined
      ? null
      : (list.captionTracks ?? []).flatMap((track): CaptionTrack[] =>
          track.baseUrl && track.languageCode
            ? [
                {
                  language: track.languageCode,
                  kind: track.kind === "asr" ? "auto" : "manual",
                  name: textOf(track.name) ?? track.languageCode,
                  baseUrl: track.baseUrl,
                  translatable: track.isTranslatable === true,
                },
              ]
            : [],
        );
  return {
    details,
    tracks,
    defaultTrackIndex: list?.audioTracks?.[0]?.defaultCaptionTrackIndex ?? null,
    translationLanguages: (list?.translationLanguages ?? []).flatMap((language): TranslationLanguage[] =>
      language.languageCode
        ? [{ languageCode: language.languageCode, languageName: textOf(language.languageName) }]
        : [],
    ),
    audioStreams: readAudioStreams(response.streamingData?.adaptiveFormats ?? []),
  };
}

/**
 * The audio streams worth transcribing. Speech recognition runs on 16 kHz mono, so the lowest
 * bitrate loses nothing; dubbed tracks and compressed (DRC) copies are left out.
 */
function readAudioStreams(formats: AdaptiveFormat[]): AudioStream[] {
  return formats
    .filter(
      (format): format is AdaptiveFormat & { url: string; itag: number; mimeType: string } =>
        format.mimeType?.startsWith("audio/") === true &&
        format.url !== undefined &&
        format.itag !== undefined &&
        format.isDrc !== true &&
        (format.audioTrack === undefined || format.audioTrack.audioIsDefault === true),
    )
    .map((format) => {
      const length = Number(format.contentLength);
      return {
        url: format.url,
        itag: format.itag,
        mimeType: format.mimeType,
        bitrate: format.bitrate ?? 0,
        contentLength: Number.isSafeInteger(length) && length > 0 ? length : null,
      };
    })
    .sort((a, b) => a.bitrate - b.bitrate);
}

function readDetails(response: PlayerResponse, requestedVideoId: string): VideoDetails {
  const details = response.videoDetails ?? {};
  const thumbnails = details.thumbnail?.thumbnails ?? [];
  const largest = thumbnails.reduce<(typeof thumbnails)[number] | undefined>(
    (best, candidate) => ((candidate.width ?? 0) > (best?.width ?? -1) ? candidate : best),
    undefined,
  );
  const length = Number(details.lengthSeconds);
  return {
    videoId: details.videoId ?? requestedVideoId,
    title: details.title ?? null,
    channel: details.author ?? null,
    description:
      typeof details.shortDescription === "string" && details.shortDescription.trim() !== ""
        ? details.shortDescription
        : null,
    // Live streams report 0 seconds: unknown, not empty.
    durationSeconds: Number.isFinite(length) && length > 0 ? length : null,
    thumbnailUrl: largest?.url ? (largest.url.split("?")[0] ?? null) : null,
    isLive: details.isLive === true,
    wasLive: details.isLiveContent === true,
  };
}

/** Maps `playabilityStatus` to our codes; YouTube only distinguishes these cases by their English reason. */
function playabilityFailure(status: string, reason: string, videoId: string): Error {
  const said = reason ? `: "${reason}"` : "";
  if (/not a bot|unusual traffic|confirm you/i.test(reason)) {
    return new UpstreamError("blocked", `YouTube asked for a bot check for video ${videoId}${said}.`);
  }
  if (/private/i.test(reason)) return new VideoUnavailableError("private", `Video ${videoId} is private${said}.`);
  if (/inappropriate|confirm your age|age-restricted/i.test(reason)) {
    return new VideoUnavailableError("age_restricted", `Video ${videoId} is age-restricted${said}.`);
  }
  if (/members|premium/i.test(reason)) {
    return new VideoUnavailableError("members_only", `Video ${videoId} is for paying members only${said}.`);
  }
  if (/country|region/i.test(reason)) {
    return new VideoUnavailableError("region_blocked", `Video ${videoId} is not available in our region${said}.`);
  }
  if (status === "LIVE_STREAM_OFFLINE" || status === "LIVE_STREAM") {
    return new VideoUnavailableError("live_stream", `Video ${videoId} is a live stream that has not ended${said}.`);
  }
  if (status === "ERROR" || status === "UNPLAYABLE") {
    return new VideoUnavailableError("unavailable", `Video ${videoId} is unavailable${said}.`);
  }
  // Any other status (LOGIN_REQUIRED without a known reason, new statuses) is YouTube refusing us, not the video.
  return new UpstreamError("blocked", `YouTube refused to play video ${videoId} (${status})${said}.`);
}
