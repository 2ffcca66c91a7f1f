import type { Innertube } from "youtubei.js";
import type { CaptionSegment } from "./caption-formats.ts";
import { CaptionFormatError, parseCaptionBody } from "./caption-formats.ts";
import { callInnertube } from "./innertube-calls.ts";
import { sameWrittenLanguage } from "./language-tags.ts";
import {
  type CaptionTrack,
  type PlayableVideo,
  readPlayerResponse,
  type TranslationLanguage,
  type VideoDetails,
} from "./player-response.ts";
import { findTranscriptPanelParams, readTranscriptPanel } from "./transcript-panel.ts";
import { UpstreamError } from "./upstream-errors.ts";

/** A video's caption transcript and what it is. */
export interface VideoCaptions {
  details: VideoDetails;
  /** BCP-47 language of the returned track; null when YouTube did not say. */
  language: string | null;
  captionKind: "manual" | "auto" | null;
  segments: CaptionSegment[];
}

/** A video's caption tracks and the languages YouTube translates them into. */
export interface CaptionListing {
  details: VideoDetails;
  /** Empty when the video has no captions (or they are turned off). */
  tracks: CaptionTrack[];
  /** Whether the player response has no `captions` object at all: the uploader turned captions off. */
  captionsMissing: boolean;
  /** The index in `tracks` YouTube would show first, when it says. */
  defaultTrackIndex: number | null;
  translationLanguages: TranslationLanguage[];
}

/** Where caption transcripts of YouTube videos come from. */
export interface CaptionSource {
  /** The video's caption tracks, without their bodies; throws `VideoUnavailableError` or `UpstreamError`. */
  listCaptions(videoId: string): Promise<CaptionListing>;
  /**
   * The words of a listed track, or with `translation` YouTube's translation of it (a language
   * `translationTargetsOf` offers for it); throws `UpstreamError`.
   */
  readCaptions(listing: CaptionListing, track: CaptionTrack, translation?: TranslationLanguage): Promise<VideoCaptions>;
}

/**
 * The languages YouTube translates a track into: none unless it is translatable, and never its
 * own language in its own script (`tlang` equal to the track's language answers damaged
 * captions, yt-dlp notes); Simplified Chinese still translates into Traditional.
 */
export function translationTargetsOf(
  track: CaptionTrack,
  languages: readonly TranslationLanguage[],
): TranslationLanguage[] {
  if (!track.translatable) return [];
  return languages.filter((language) => !sameWrittenLanguage(language.languageCode, track.language));
}

/**
 * Caption transcripts through youtubei.js: the ANDROID `player` call lists the tracks (the
 * client whose caption URLs work without a proof-of-origin token), the chosen track's body
 * comes from `/api/timedtext`, and when that body is empty (YouTube wants a PO token, the
 * `exp=xpe` URLs) the WEB transcript panel (`next` then `get_transcript`) is read instead.
 */
export class YoutubeiCaptionSource implements CaptionSource {
  constructor(
    private readonly innertube: () => Promise<Innertube>,
    private readonly upstreamFetch: typeof fetch,
  ) {}

  async listCaptions(videoId: string): Promise<CaptionListing> {
    const video = await this.player(await this.innertube(), videoId);
    return {
      details: video.details,
      tracks: video.tracks ?? [],
      captionsMissing: video.tracks === null,
      defaultTrackIndex: video.defaultTrackIndex,
      translationLanguages: video.translationLanguages,
    };
  }

  async readCaptions(
    listing: CaptionListing,
    track: CaptionTrack,
    translation?: TranslationLanguage,
  ): Promise<VideoCaptions> {
    const { details } = listing;
    if (translation) return this.translated(details, track, translation);
    const body = await this.captionBody(track.baseUrl);
    if (body.trim().length > 0) {
      return { details, language: track.language, captionKind: track.kind, segments: parseOrFail(body) };
    }
    return this.fromTranscriptPanel(await this.innertube(), details, listing.tracks);
  }

  private async player(yt: Innertube, videoId: string): Promise<PlayableVideo> {
    return readPlayerResponse(await callInnertube(yt, "/player", { videoId, client: "ANDROID" }), videoId);
  }

  /**
   * YouTube's machine translation of a track: its body with `&tlang=<code>`. The transcript panel
   * cannot translate, so an empty body (YouTube wants a proof-of-origin token) fails instead of
   * answering the untranslated words.
   */
  private async translated(
    details: VideoDetails,
    track: CaptionTrack,
    target: TranslationLanguage,
  ): Promise<VideoCaptions> {
    const body = await this.captionBody(`${track.baseUrl}&tlang=${encodeURIComponent(target.languageCode)}`);
    if (body.trim().length === 0) {
      throw new UpstreamError(
        "blocked",
        `YouTube served an empty translation of the captions of video ${details.videoId} (it wants a proof-of-origin token), and its transcript panel does not translate.`,
      );
    }
    return { details, language: target.languageCode, captionKind: "auto", segments: parseOrFail(body) };
  }

  private async captionBody(url: string): Promise<string> {
    const response = await this.upstreamFetch(url);
    return response.text();
  }

  private async fromTranscriptPanel(
    yt: Innertube,
    details: VideoDetails,
    tracks: CaptionTrack[],
  ): Promise<VideoCaptions> {
    const params = findTranscriptPanelParams(await callInnertube(yt, "/next", { videoId: details.videoId }));
    if (!params) {
      throw new UpstreamError(
        "blocked",
        `YouTube served an empty caption body for video ${details.videoId} (it wants a proof-of-origin token) and offers no transcript panel.`,
      );
    }
    const panel = readTranscriptPanel(await callInnertube(yt, "/get_transcript", { params }));
    if (panel.segments.length === 0) {
      throw new UpstreamError("unparseable", `The transcript panel of video ${details.videoId} holds no text.`);
    }
    const shown = tracks.find((track) => track.name === panel.selectedTrackName);
    const automatic = panel.selectedTrackName !== null && /auto-generated/i.test(panel.selectedTrackName);
    return {
      details,
      language: shown?.language ?? null,
      captionKind: shown?.kind ?? (automatic ? "auto" : null),
      segments: panel.segments,
    };
  }
}

function parseOrFail(body: string): CaptionSegment[] {
  try {
    return parseCaptionBody(body);
  } catch (error) {
    if (error instanceof CaptionFormatError)
      throw new UpstreamError("unparseable", error.message, undefined, { cause: error });
    throw error;
  }
}
