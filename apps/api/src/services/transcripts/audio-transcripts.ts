import { ApiError } from "../../errors.ts";
import { chooseTranslation } from "../../sources/caption-translations.ts";
import type { CaptionTrack, PlatformSource, SourceDetails, SourceRef } from "../../sources/platform-source.ts";
import type { SourceRegistry } from "../../sources/registry.ts";
import { SourceError } from "../../sources/source-error.ts";
import type { CaptionChoice } from "../../store/statements/deliver-stored.ts";
import type { Credits } from "../accounts/index.ts";
import { pricing } from "../accounts/index.ts";
import { toApiError, translationUnavailable } from "../failures/index.ts";
import type { TranscriptStore } from "../kept/index.ts";
import {
  callOf,
  captionsTranscript,
  chargeOf,
  fieldsOf,
  KeptTranscripts,
  keptCaptionsTranscript,
  keptFieldsOf,
  libraryDeliveryOf,
  storedItemOf,
  type TranscriptOutcome,
  type TranscriptQuery,
} from "../kept/index.ts";
import type { SpeechRecognition } from "../speech/index.ts";

export interface AudioTranscriptsOptions {
  /** The sources an input may name, asked in order. */
  sources: SourceRegistry;
  store: TranscriptStore;
  credits: Credits;
  /** Speech recognition and its jobs; without it, only captions are served and speech is refused. */
  speech?: SpeechRecognition;
}

/**
 * The transcript of any input, whatever the platform, captions first: the registry says which
 * source the input names, and the source reads it. A caption track (the creator's, the
 * platform's, a podcast publisher's) is 1 credit, from the store when kept before; else speech
 * recognition (`SpeechRecognition`), charged per started minute. `request` is the one way in.
 */
export class AudioTranscripts {
  private readonly kept: KeptTranscripts;

  constructor(private readonly options: AudioTranscriptsOptions) {
    this.kept = new KeptTranscripts(options.credits);
  }

  /**
   * Input errors come first, then the balance: a 402 is for a request that would otherwise run.
   * An item its source names offline (`SourceRef.itemId`) is served from the store before any
   * upstream call; any other is resolved first, so a kept transcript goes only to whom the
   * platform still shows the item.
   */
  async request(query: TranscriptQuery): Promise<TranscriptOutcome> {
    const match = this.options.sources.match(query.video);
    if (query.translateTo !== undefined && query.mode === "audio") {
      throw translationUnavailable(
        `Speech recognition (mode "audio") cannot be translated: only captions can be; drop mode or translate_to.`,
        [],
      );
    }
    if (match instanceof SourceError) throw toApiError(match);
    const { source, ref } = match;
    const untranslatable = query.translateTo === undefined ? null : source.untranslatable(ref);
    if (untranslatable !== null) throw translationUnavailable(untranslatable, []);
    this.options.credits.requireAtLeast(query.balance, pricing.minimum());
    const speech = source.readsAudio ? this.options.speech : undefined;
    if (query.mode === "audio" && !speech) {
      throw new ApiError(
        "unsupported_platform",
        `This server does not transcribe the audio of ${source.label} videos; ask for the captions of ${ref.itemId ?? ref.url} with mode "captions" or "auto".`,
      );
    }
    const { itemId } = ref;
    if (itemId !== undefined) {
      const kept =
        query.mode === "audio" && speech
          ? await speech.keptOf(query, { ...ref, itemId })
          : await this.keptCaptionsOf(query, { ...ref, itemId });
      if (kept) return kept;
    }
    const details = await source.resolve(ref, {
      ...callOf(query),
      purpose: query.mode === "audio" ? "speech" : "captions",
      ...(query.episode === undefined ? {} : { episode: query.episode }),
    });
    if (query.mode !== "audio") {
      const captioned = await this.captionsFirst(query, source, details, itemId === undefined);
      if (!(captioned instanceof SourceError)) return captioned;
      if (query.mode === "captions" || !speech) throw toApiError(captioned);
    }
    if (!speech) throw new Error("speech recognition was ruled out before the item was resolved");
    return speech.transcribe(query, source, details);
  }

  /**
   * The captions of a resolved item: with `translate_to`, the platform's translation the choice
   * names or 422 `translation_unavailable` (never speech); else the track the captions-first
   * rule chooses. Answers why there are none when no track holds text.
   */
  private async captionsFirst(
    query: TranscriptQuery,
    source: PlatformSource,
    details: SourceDetails,
    lookUpKept: boolean,
  ): Promise<TranscriptOutcome | SourceError> {
    if (query.translateTo !== undefined) {
      const choice = chooseTranslation(source, details, query.language, query.translateTo);
      if (choice.kind === "unavailable") throw translationUnavailable(choice.message, choice.available);
      const served = await this.servedCaptions(query, source, details, choice.track, choice.sourceLanguage, lookUpKept);
      if (served) return served;
      throw translationUnavailable(
        `The ${choice.track.language} captions of ${details.url} hold no text: only captions can be translated.`,
        [],
      );
    }
    const track = source.captionTrack(details, query.language);
    const served = track ? await this.servedCaptions(query, source, details, track, null, lookUpKept) : null;
    return served ?? source.captionless(details);
  }

  /**
   * A track, charged: from the store when kept before (per platform, item, language and kind;
   * `lookUpKept` is false where the request's choice was looked up already), else read and kept;
   * null when it holds no text. A publisher's transcript is read each time: the publisher may
   * correct it. A translation is kept as the track of its language, with the language it came
   * from, which its delivery says.
   */
  private async servedCaptions(
    query: TranscriptQuery,
    source: PlatformSource,
    details: SourceDetails,
    track: CaptionTrack,
    sourceLanguage: string | null,
    lookUpKept: boolean,
  ): Promise<TranscriptOutcome | null> {
    const fields = fieldsOf(details, this.options.speech?.language ?? null);
    const stored = storedItemOf(details);
    const keeps = track.kind !== "publisher";
    if (keeps && lookUpKept) {
      const kept = await this.kept.serve(
        query,
        {
          lookup: { by: "track", item: stored, language: track.language, captionKind: track.kind, sourceLanguage },
          credits: pricing.captions(),
          delivery: libraryDeliveryOf(fields, "captions"),
          fields: { title: fields.title, channel: fields.channel, durationSeconds: fields.duration },
        },
        (found) => keptCaptionsTranscript(fields, found),
      );
      if (kept) return kept;
    }
    const captions = await source.captions(details, track, callOf(query));
    if (!captions) return null;
    const transcript = captionsTranscript(fields, captions, sourceLanguage);
    if (keeps && captions.kind !== "publisher") {
      await this.options.store.keepCaptions(
        stored,
        {
          title: details.title,
          channel: details.channel,
          durationSeconds: details.durationSeconds,
          thumbnailUrl: details.thumbnailUrl,
          language: transcript.language,
          captionKind: captions.kind,
          sourceLanguage,
          chapters: details.chapters,
          segments: transcript.segments,
        },
        lookUpKept ? undefined : choiceOf(query),
      );
    }
    const creditsSpent = pricing.captions();
    const balance = await this.options.credits.charge(chargeOf(query, creditsSpent));
    return { kind: "transcript", transcript, creditsSpent, balance };
  }

  /** The track kept for the request's choice of an item named offline, served before the item is resolved; null when none. */
  private keptCaptionsOf(
    query: TranscriptQuery,
    ref: SourceRef & { itemId: string },
  ): Promise<TranscriptOutcome | null> {
    return this.kept.serve(
      query,
      {
        lookup: { by: "choice", item: { platform: ref.platform, item: ref.itemId }, choice: choiceOf(query) },
        credits: pricing.captions(),
        delivery: { platform: ref.platform, video_id: ref.itemId, url: ref.url, source: "captions" },
      },
      (stored) => keptCaptionsTranscript(keptFieldsOf(ref, stored), stored),
    );
  }
}

/** What the request asked of the item's captions, as the store keeps choices: lower-cased, '' for what it left out. */
function choiceOf(query: TranscriptQuery): CaptionChoice {
  return {
    requestedLanguage: query.language?.toLowerCase() ?? "",
    translateTo: query.translateTo?.toLowerCase() ?? "",
  };
}
