import { parseVideoReference } from "../adapters/youtube/video-reference.ts";
import { ApiError } from "../errors.ts";
import type { Logger } from "../logger.ts";
import type { RecordedEntry } from "../store/statements/library-entry.ts";
import type { FullTranscript } from "./audio-transcript-store.ts";
import type { AudioRequest, AudioTranscripts } from "./audio-transcripts.ts";
import type { Credits } from "./credits.ts";
import type { TranscriptLibrary } from "./library.ts";
import { pricing } from "./pricing.ts";
import type { HeldSlot } from "./slots.ts";
import { toApiError, translationUnavailable } from "./source-failures.ts";
import {
  isCaptionless,
  type SerialisedSegments,
  type VideoTranscripts,
  type YoutubeTranscript,
  youtubeWatchUrl,
} from "./video-transcripts.ts";

/** One input for one account, as a transcript request, a batch row or a monitor asks for it. */
export interface TranscriptQuery extends AudioRequest {
  /** The preferred caption language of a YouTube video. */
  language?: string;
  /** The language to translate the captions into, with the platform's own translation (`translate_to`). */
  translateTo?: string;
  /** The request's extraction slot: a transcript served from the store gives it back in the statement that charges. */
  slot?: HeldSlot;
  /** The answer times each word (`words: true`): a transcript served from the store reads the times it keeps. */
  words?: boolean;
}

/**
 * What a query came to: a transcript, charged, or a speech recognition job, charged when it
 * completes. A transcript served from the store was recorded in the library by the statement
 * that charged it (`recorded`: the entry it wrote, `null` when it left the entry as it was).
 */
export type TranscriptOutcome =
  | {
      kind: "transcript";
      transcript: FullTranscript;
      creditsSpent: number;
      balance: number | null;
      recorded?: RecordedEntry | null;
      /** Served from the store: the segments as it keeps them, which the response may splice in unparsed. */
      serialised?: SerialisedSegments;
    }
  | { kind: "job"; jobId: string; videoId: string; platform: FullTranscript["platform"] };

export interface TranscriptsOptions {
  credits: Credits;
  /** Where each transcript delivered to an account is recorded; jobs record theirs when they complete. */
  library: TranscriptLibrary;
  /** Told when recording in the library fails: the transcript was delivered and charged all the same. */
  logger: Logger;
  /** YouTube captions; without them, YouTube inputs are refused. */
  youtube?: VideoTranscripts;
  /** Podcasts, feeds, media and speech recognition; without them, only YouTube captions are served. */
  audio?: AudioTranscripts;
}

/**
 * Fetches the transcript of one input for one account: YouTube captions (from the store when
 * fetched before), a publisher's transcript, or speech recognition inline or as a job. Every
 * caller (the video endpoint, batch rows, monitors) goes through here, so the same input gets
 * the same errors and the same charges wherever it is asked, and every transcript delivered
 * lands in the account's library (a job's lands there when it completes).
 */
export class Transcripts {
  constructor(private readonly options: TranscriptsOptions) {}

  async fetch(query: TranscriptQuery): Promise<TranscriptOutcome> {
    const outcome = await this.deliver(query).catch((error: unknown) => {
      throw toApiError(error);
    });
    if (outcome.kind === "transcript") {
      await this.recordDelivery(query, outcome).catch((error: unknown) => {
        this.options.logger.error(
          { err: error, videoId: outcome.transcript.video_id, requestId: query.requestId },
          "recording a delivered transcript in the library failed",
        );
      });
    }
    return outcome;
  }

  /**
   * Records a delivered transcript in the library: in the transaction the charge waits in for the
   * answer, if it does, within a savepoint, so a recording that fails undoes neither the charge
   * nor the answer.
   */
  private recordDelivery(query: TranscriptQuery, outcome: TranscriptOutcome & { kind: "transcript" }): Promise<void> {
    const { library } = this.options;
    const db = query.settlement?.transaction;
    const { recorded } = outcome;
    if (recorded !== undefined) {
      return recorded ? library.indexIfChanged(recorded, () => outcome.transcript.segments, db) : Promise.resolve();
    }
    if (db) return db.transaction((savepoint) => library.record(query.accountId, outcome.transcript, savepoint));
    return library.record(query.accountId, outcome.transcript);
  }

  private async deliver(query: TranscriptQuery): Promise<TranscriptOutcome> {
    const reference = parseVideoReference(query.video);
    const { audio } = this.options;
    const platformItem = reference.kind === "youtube" ? null : audio?.matchPlatform(query.video);
    if (query.translateTo !== undefined && query.mode === "audio") {
      throw translationUnavailable(
        `Speech recognition (mode "audio") cannot be translated: only captions can be; drop mode or translate_to.`,
        [],
      );
    }
    if (audio && platformItem) {
      // Input errors come first: a 402 is for a request that would otherwise run.
      this.options.credits.requireAtLeast(query.balance, pricing.minimum());
      return audio.requestPlatform(query, platformItem, query.language, query.translateTo);
    }
    if (reference.kind === "youtube-without-video") {
      throw new ApiError("invalid_input", `"${query.video}" is a YouTube address but names no video.`);
    }
    if (reference.kind === "malformed") {
      throw new ApiError("invalid_input", `"${query.video}" is neither a YouTube video id nor a URL.`);
    }
    if (query.translateTo !== undefined && reference.kind === "other-url") {
      throw translationUnavailable(
        `${reference.url.hostname} is a podcast, feed or media file: only captions can be translated, and a publisher's transcript or speech recognition cannot be.`,
        [],
      );
    }
    // Input errors come first: a 402 is for a request that would otherwise run.
    this.options.credits.requireAtLeast(query.balance, pricing.minimum());
    if (reference.kind === "other-url") {
      if (!audio) {
        throw new ApiError(
          "unsupported_platform",
          `${reference.url.hostname} is not YouTube, and this server transcribes no other sources.`,
        );
      }
      return audio.request(query);
    }
    return this.youtube(query, reference.videoId);
  }

  /**
   * A YouTube video's captions, or speech recognition of its audio when asked for (`mode:
   * "audio"`) or when `auto` finds no captions. Without speech recognition, those cases are
   * refused with the reason.
   */
  private async youtube(query: TranscriptQuery, videoId: string): Promise<TranscriptOutcome> {
    const { youtube } = this.options;
    if (!youtube) throw new ApiError("unsupported_platform", "YouTube is not configured on this server.");
    const speech = this.options.audio?.transcribesYoutube ? this.options.audio : undefined;
    if (query.mode !== "audio") {
      try {
        const credits = pricing.captions();
        const charge = {
          accountId: query.accountId,
          credits,
          operation: query.operation,
          requestId: query.requestId,
          ...(query.signal ? { signal: query.signal } : {}),
          ...(query.settlement ? { settlement: query.settlement } : {}),
        };
        const { slot } = query;
        const charged = await youtube.captionsOf(
          videoId,
          query.language,
          charge,
          query.translateTo,
          slot?.lease.id,
          query.words === true,
        );
        if (charged.stored?.slotReleased && slot) {
          // A statement rolled back with the answer gave nothing back: the response's close does.
          if (query.settlement) query.settlement.afterCommit(() => slot.releasedByStatement());
          else slot.releasedByStatement();
        }
        const { serialised } = charged.transcript;
        return {
          kind: "transcript",
          transcript: captionTranscript(charged.transcript),
          creditsSpent: credits,
          balance: charged.balance,
          ...(charged.stored ? { recorded: charged.stored.libraryEntry } : {}),
          ...(serialised ? { serialised } : {}),
        };
      } catch (error) {
        const failure = toApiError(error);
        if (query.translateTo !== undefined && isCaptionless(failure)) {
          throw translationUnavailable(`${failure.message} Only captions can be translated.`, []);
        }
        if (query.mode === "captions" || !speech || !isCaptionless(failure)) throw failure;
      }
    } else if (!speech) {
      throw new ApiError(
        "unsupported_platform",
        `This server does not transcribe the audio of YouTube videos; ask for the captions of ${videoId} with mode "captions" or "auto".`,
      );
    }
    return speech.requestYoutube(query, videoId);
  }
}

/**
 * Captions as the wire's transcript: `text` is the segments joined. Both are read from the
 * captions only when read, so segments the store serialised are parsed only if something needs them.
 */
function captionTranscript(transcript: YoutubeTranscript): FullTranscript {
  let text: string | undefined;
  return {
    kind: "transcript",
    video_id: transcript.videoId,
    url: youtubeWatchUrl(transcript.videoId),
    platform: "youtube",
    title: transcript.title,
    channel: transcript.channel,
    duration: transcript.durationSeconds,
    language: transcript.language,
    source: transcript.source,
    caption_kind: transcript.captionKind,
    thumbnail_url: transcript.thumbnailUrl,
    speakers: null,
    speech_engine: null,
    ...(transcript.sourceLanguage === null ? {} : { source_language: transcript.sourceLanguage }),
    get segments() {
      return transcript.segments;
    },
    get text() {
      text ??= transcript.segments.map((segment) => segment.text).join(" ");
      return text;
    },
  };
}
