import type { Innertube } from "youtubei.js";
import type { CaptionSegment } from "./caption-formats.ts";
import { CaptionFormatError, parseCaptionBody } from "./caption-formats.ts";
import { chooseCaptionTrack } from "./caption-track-choice.ts";
import { callInnertube } from "./innertube-calls.ts";
import { type CaptionTrack, readPlayerResponse, type VideoDetails } from "./player-response.ts";
import { findTranscriptPanelParams, readTranscriptPanel } from "./transcript-panel.ts";
import { UpstreamError, VideoUnavailableError } from "./upstream-errors.ts";

/** A video's caption transcript and what it is. */
export interface VideoCaptions {
  details: VideoDetails;
  /** BCP-47 language of the returned track; null when YouTube did not say. */
  language: string | null;
  captionKind: "manual" | "auto" | null;
  segments: CaptionSegment[];
}

/** Where caption transcripts of YouTube videos come from. */
export interface CaptionSource {
  /** The captions of a video in the requested language or its fallback; throws `VideoUnavailableError` or `UpstreamError`. */
  fetchCaptions(videoId: string, language: string | undefined): Promise<VideoCaptions>;
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

  async fetchCaptions(videoId: string, language: string | undefined): Promise<VideoCaptions> {
    const yt = await this.innertube();
    const video = readPlayerResponse(await callInnertube(yt, "/player", { videoId, client: "ANDROID" }), videoId);
    const { details, tracks } = video;
    if (!tracks || tracks.length === 0) throw noCaptions(details, tracks === null);
    const track = chooseCaptionTrack(tracks, language, video.defaultTrackIndex);
    if (!track) throw noCaptions(details, false);
    const body = await this.captionBody(track);
    if (body.trim().length > 0) {
      return { details, language: track.language, captionKind: track.kind, segments: parseOrFail(body) };
    }
    return this.fromTranscriptPanel(yt, details, tracks);
  }

  private async captionBody(track: CaptionTrack): Promise<string> {
    const response = await this.upstreamFetch(track.baseUrl);
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

/** No track at all: a past live stream keeps none, otherwise the uploader turned captions off or never had any. */
function noCaptions(details: VideoDetails, captionsObjectMissing: boolean): VideoUnavailableError {
  if (details.wasLive) {
    return new VideoUnavailableError("was_live", `Video ${details.videoId} is a past live stream without captions.`);
  }
  if (captionsObjectMissing) {
    return new VideoUnavailableError("captions_disabled", `Captions are disabled for video ${details.videoId}.`);
  }
  return new VideoUnavailableError("no_captions", `Video ${details.videoId} has no caption track.`);
}
