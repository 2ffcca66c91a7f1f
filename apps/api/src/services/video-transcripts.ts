import { sql } from "drizzle-orm";
import type { CaptionSource, VideoCaptions } from "../adapters/youtube/index.ts";
import { TranslationUnavailableError, UpstreamError, VideoUnavailableError } from "../adapters/youtube/index.ts";
import { ApiError } from "../errors.ts";
import { liveEndpoint } from "../sources/source-error.ts";
import type { Store } from "../store/database.ts";
import { youtubeCaptionChoices, youtubeTranscripts } from "../store/schema.ts";
import {
  type CaptionChoice,
  deliverStored,
  type StoredCaptions,
  type StoredDelivery,
} from "../store/statements/deliver-stored.ts";
import { contentHashOf } from "../store/statements/library-entry.ts";
import type { ChargeRequest, Credits } from "./credits.ts";
import { ingestedText } from "./segment-text.ts";
import { ingestedWords, type Word } from "./word-timing.ts";

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
  /** For a translation (`translate_to`): the language of the track it came from; null otherwise. */
  sourceLanguage: string | null;
  /** With the words the track timed (automatic captions); served from the store, only when they were read. */
  segments: Array<{ start: number; duration: number; text: string; words?: Word[] }>;
  /** Served from the store: the segments without words as the store keeps them, for a response to splice in unparsed. */
  serialised?: SerialisedSegments;
}

/** Segments as JSON text, and the UTF-8 bytes of their texts joined by single spaces (`usage.bytes`). */
export interface SerialisedSegments {
  json: string;
  textBytes: number;
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
 * A transcript and the balance after its charge (`null` for unlimited accounts); served from the
 * store, with what the statement that served it also did (`stored`).
 */
export interface ChargedTranscript {
  transcript: YoutubeTranscript;
  balance: number | null;
  stored?: Pick<StoredDelivery, "libraryEntry" | "slotReleased">;
}

/**
 * YouTube caption transcripts, charged: served from the store when this video was fetched before
 * in the requested language and translation (the read and the charge in one statement), otherwise
 * fetched through the caption source, stored, then charged. Maps every adapter failure to its API
 * error; a failure charges nothing.
 */
export class VideoTranscripts {
  constructor(
    private readonly store: Store,
    private readonly captions: CaptionSource,
    private readonly credits: Credits,
    private readonly now: () => Date,
  ) {}

  /**
   * `translateTo` asks YouTube's translation of the chosen track. Served from the store, the
   * statement that charges also records the delivery in the account's library and gives back the
   * slot `slotLeaseId` names, and the segments carry the words' times only when `words` asks them.
   */
  async captionsOf(
    videoId: string,
    language: string | undefined,
    charge: ChargeRequest,
    translateTo?: string,
    slotLeaseId?: string,
    words = false,
  ): Promise<ChargedTranscript> {
    try {
      return await this.fromCaptions(videoId, { language, translateTo }, charge, slotLeaseId, words);
    } catch (error) {
      throw toApiError(error);
    }
  }

  private async fromCaptions(
    videoId: string,
    asked: { language: string | undefined; translateTo: string | undefined },
    charge: ChargeRequest,
    slotLeaseId: string | undefined,
    withWords: boolean,
  ): Promise<ChargedTranscript> {
    const choice = {
      requestedLanguage: asked.language?.toLowerCase() ?? "",
      translateTo: asked.translateTo?.toLowerCase() ?? "",
    };
    const url = youtubeWatchUrl(videoId);
    const stored = await this.credits.chargeWithin(charge, (db, debit) =>
      deliverStored(db, {
        videoId,
        choice,
        debit,
        url,
        withWords,
        ...(slotLeaseId === undefined ? {} : { slotLeaseId }),
      }),
    );
    if (stored) {
      const { libraryEntry, slotReleased } = stored;
      return {
        transcript: fromStored(stored.transcript),
        balance: stored.balance,
        stored: { libraryEntry, slotReleased },
      };
    }
    const captions = await this.captions.fetchCaptions(videoId, asked.language, asked.translateTo);
    const transcript = await this.remember(videoId, choice, captions);
    return { transcript, balance: await this.credits.charge(charge) };
  }

  private async remember(videoId: string, choice: CaptionChoice, captions: VideoCaptions): Promise<YoutubeTranscript> {
    const transcript: YoutubeTranscript = {
      videoId,
      title: captions.details.title,
      channel: captions.details.channel,
      durationSeconds: captions.details.durationSeconds,
      thumbnailUrl: captions.details.thumbnailUrl,
      language: captions.language,
      source: "captions",
      captionKind: captions.captionKind,
      sourceLanguage: captions.sourceLanguage,
      segments: captions.segments.map((segment) => ({
        ...segment,
        text: ingestedText(segment.text),
        ...(segment.words ? { words: ingestedWords(segment.words) } : {}),
      })),
    };
    const timed = transcript.segments.some((segment) => segment.words !== undefined);
    const stored = {
      videoId,
      language: transcript.language,
      captionKind: transcript.captionKind,
      sourceLanguage: transcript.sourceLanguage,
      title: transcript.title,
      channel: transcript.channel,
      durationSeconds: transcript.durationSeconds,
      thumbnailUrl: transcript.thumbnailUrl,
      segments: transcript.segments.map(({ words: _kept, ...segment }) => segment),
      segmentWords: timed ? transcript.segments.map((segment) => segment.words ?? null) : null,
      // Hashed with the words, as the library hashes the transcript delivered: its passages keep their times.
      contentHash: contentHashOf(sql`${transcript.language}::text`, sql`${JSON.stringify(transcript.segments)}::jsonb`),
      textBytes: Buffer.byteLength(transcript.segments.map((segment) => segment.text).join(" ")),
      fetchedAt: this.now(),
    };
    await this.store.db.transaction(async (tx) => {
      const [track] = await tx
        .insert(youtubeTranscripts)
        .values(stored)
        .onConflictDoUpdate({
          target: [
            youtubeTranscripts.videoId,
            youtubeTranscripts.language,
            youtubeTranscripts.captionKind,
            youtubeTranscripts.sourceLanguage,
          ],
          set: stored,
        })
        .returning({ id: youtubeTranscripts.id });
      if (!track) throw new Error(`storing the transcript of ${videoId} returned no row`);
      await tx
        .insert(youtubeCaptionChoices)
        .values({ videoId, ...choice, transcriptId: track.id })
        .onConflictDoUpdate({
          target: [
            youtubeCaptionChoices.videoId,
            youtubeCaptionChoices.requestedLanguage,
            youtubeCaptionChoices.translateTo,
          ],
          set: { transcriptId: track.id },
        });
    });
    return transcript;
  }
}

function fromStored(stored: StoredCaptions): YoutubeTranscript {
  const { segmentsJson, segmentWordsJson, textBytes, ...fields } = stored;
  let segments: YoutubeTranscript["segments"] | undefined;
  return {
    ...fields,
    source: "captions",
    // Parsed only when read: a response that splices the JSON text in never reads them.
    get segments() {
      segments ??= withStoredWords(JSON.parse(segmentsJson) as YoutubeTranscript["segments"], segmentWordsJson);
      return segments;
    },
    serialised: { json: segmentsJson, textBytes },
  };
}

/** The stored segments with the words the track timed (`segment_words`), where the statement read them. */
function withStoredWords(
  segments: YoutubeTranscript["segments"],
  segmentWordsJson: string | null,
): YoutubeTranscript["segments"] {
  if (segmentWordsJson === null) return segments;
  const words = JSON.parse(segmentWordsJson) as Array<Word[] | null>;
  return segments.map((segment, index) => {
    const timed = words[index];
    return timed ? { ...segment, words: timed } : segment;
  });
}

/** The API error for a failure of the YouTube adapter; an `ApiError` passes unchanged, anything else is rethrown. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof TranslationUnavailableError) return translationUnavailable(error.message, error.available);
  if (error instanceof VideoUnavailableError) {
    if (error.reason === "no_captions" || error.reason === "captions_disabled") {
      return new ApiError(error.reason, error.message, { extra: { retry_with: { mode: "audio" } } });
    }
    if (error.reason === "live_stream") {
      return new ApiError(error.reason, error.message, { extra: { retry_with: { endpoint: liveEndpoint } } });
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

/** 422 `translation_unavailable`, naming the languages `translate_to` may ask of this source instead. */
export function translationUnavailable(message: string, available: readonly string[]): ApiError {
  return new ApiError("translation_unavailable", `${message} Nothing was charged.`, {
    extra: { retry_with: { translate_to: [...available] } },
  });
}
