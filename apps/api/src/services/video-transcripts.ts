import { and, eq } from "drizzle-orm";
import type { CaptionSource, VideoCaptions } from "../adapters/youtube/index.ts";
import { UpstreamError, VideoUnavailableError } from "../adapters/youtube/index.ts";
import { ApiError } from "../errors.ts";
import type { Store } from "../store/database.ts";
import { youtubeCaptionChoices, youtubeTranscripts } from "../store/schema.ts";

/** Where the words of a transcript may come from (the request's `mode`). */
export type TranscriptMode = "auto" | "captions" | "audio";

/** A YouTube transcript as the service returns it, before the envelope shapes it. */
export interface YoutubeTranscript {
  videoId: string;
  title: string | null;
  channel: string | null;
  durationSeconds: number | null;
  thumbnailUrl: string | null;
  language: string | null;
  source: "captions" | "audio";
  captionKind: "manual" | "auto" | null;
  segments: Array<{ start: number; duration: number; text: string }>;
}

/** The address a YouTube transcript names: the watch page. */
export function youtubeWatchUrl(videoId: string): string {
  return `https://www.youtube.com/watch?v=${videoId}`;
}

/** Whether a caption failure says the video has no captions, which its audio can make up for. */
export function isCaptionless(failure: ApiError): boolean {
  return failure.code === "no_captions" || failure.code === "captions_disabled";
}

/**
 * YouTube caption transcripts: served from the store when this video was fetched before in the
 * requested language, otherwise fetched through the caption source and stored. Maps every
 * adapter failure to its API error.
 */
export class VideoTranscripts {
  constructor(
    private readonly store: Store,
    private readonly captions: CaptionSource,
    private readonly now: () => Date,
  ) {}

  async captionsOf(videoId: string, language: string | undefined): Promise<YoutubeTranscript> {
    try {
      return await this.fromCaptions(videoId, language);
    } catch (error) {
      throw toApiError(error);
    }
  }

  private async fromCaptions(videoId: string, language: string | undefined): Promise<YoutubeTranscript> {
    const requestedLanguage = language?.toLowerCase() ?? "";
    const stored = await this.storedChoice(videoId, requestedLanguage);
    if (stored) return stored;
    const captions = await this.captions.fetchCaptions(videoId, language);
    return this.remember(videoId, requestedLanguage, captions);
  }

  private async storedChoice(videoId: string, requestedLanguage: string): Promise<YoutubeTranscript | null> {
    const [row] = await this.store.db
      .select({ transcript: youtubeTranscripts })
      .from(youtubeCaptionChoices)
      .innerJoin(youtubeTranscripts, eq(youtubeTranscripts.id, youtubeCaptionChoices.transcriptId))
      .where(
        and(eq(youtubeCaptionChoices.videoId, videoId), eq(youtubeCaptionChoices.requestedLanguage, requestedLanguage)),
      );
    if (!row) return null;
    const stored = row.transcript;
    return {
      videoId: stored.videoId,
      title: stored.title,
      channel: stored.channel,
      durationSeconds: stored.durationSeconds,
      thumbnailUrl: stored.thumbnailUrl,
      language: stored.language,
      source: "captions",
      captionKind: stored.captionKind as YoutubeTranscript["captionKind"],
      segments: stored.segments,
    };
  }

  private async remember(
    videoId: string,
    requestedLanguage: string,
    captions: VideoCaptions,
  ): Promise<YoutubeTranscript> {
    const transcript: YoutubeTranscript = {
      videoId,
      title: captions.details.title,
      channel: captions.details.channel,
      durationSeconds: captions.details.durationSeconds,
      thumbnailUrl: captions.details.thumbnailUrl,
      language: captions.language,
      source: "captions",
      captionKind: captions.captionKind,
      segments: captions.segments,
    };
    const stored = {
      videoId,
      language: transcript.language,
      captionKind: transcript.captionKind,
      title: transcript.title,
      channel: transcript.channel,
      durationSeconds: transcript.durationSeconds,
      thumbnailUrl: transcript.thumbnailUrl,
      segments: transcript.segments,
      fetchedAt: this.now(),
    };
    await this.store.db.transaction(async (tx) => {
      const [track] = await tx
        .insert(youtubeTranscripts)
        .values(stored)
        .onConflictDoUpdate({
          target: [youtubeTranscripts.videoId, youtubeTranscripts.language, youtubeTranscripts.captionKind],
          set: stored,
        })
        .returning({ id: youtubeTranscripts.id });
      if (!track) throw new Error(`storing the transcript of ${videoId} returned no row`);
      await tx
        .insert(youtubeCaptionChoices)
        .values({ videoId, requestedLanguage, transcriptId: track.id })
        .onConflictDoUpdate({
          target: [youtubeCaptionChoices.videoId, youtubeCaptionChoices.requestedLanguage],
          set: { transcriptId: track.id },
        });
    });
    return transcript;
  }
}

/** The API error for a failure of the YouTube adapter; an `ApiError` passes unchanged, anything else is rethrown. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof VideoUnavailableError) {
    if (error.reason === "no_captions" || error.reason === "captions_disabled") {
      return new ApiError(error.reason, error.message, { extra: { retry_with: { mode: "audio" } } });
    }
    return new ApiError(error.reason, error.message);
  }
  if (error instanceof UpstreamError) {
    const code =
      error.kind === "timeout"
        ? "timeout"
        : error.kind === "connection"
          ? "connection"
          : error.kind === "unparseable"
            ? "parse_error"
            : "upstream_error";
    return new ApiError(code, `${error.message} Nothing was charged; retry with backoff.`, { cause: error });
  }
  throw error;
}
