import type { Schema } from "@verbatim/contract";
import type { AudioSources, ResolvedAudioSource } from "../adapters/audio-sources/audio-source.ts";
import { type CaptionSource, type CaptionTrack, translationTargetsOf } from "../adapters/youtube/index.ts";
import { parseVideoReference } from "../adapters/youtube/video-reference.ts";
import { ApiError } from "../errors.ts";
import { originalTrackOf, translationTracksOf } from "../sources/caption-translations.ts";
import type { SourceDetails } from "../sources/platform-source.ts";
import type { SourceMatch, SourceRegistry } from "../sources/registry.ts";
import { toApiError } from "./source-failures.ts";

type CaptionLanguages = Schema<"CaptionLanguages">;
type CaptionLanguage = Schema<"CaptionLanguage">;

/** BCP-47 for a language nobody stated: a publisher's transcript in a feed that declares none. */
const undeterminedLanguage = "und";

export interface CaptionLanguageListsOptions {
  /** YouTube's caption tracks; without them, YouTube inputs are refused. */
  youtube?: CaptionSource;
  /** Podcasts, feeds and media files; without them, other addresses are refused. */
  sources?: AudioSources;
  /** The other video platforms; without them, their links are read as web pages, as transcripts do. */
  platforms?: SourceRegistry;
}

/**
 * The caption tracks of a source, as `POST /transcripts/languages` lists them, without reading
 * any track's words: YouTube's tracks from the player response, a platform's from yt-dlp's
 * details, a podcast's publisher transcripts from its feed, and none for a media file. An input
 * is classified as `POST /transcripts/video` classifies it, with the same input errors.
 */
export class CaptionLanguageLists {
  constructor(private readonly options: CaptionLanguageListsOptions) {}

  /** `accountId` is whom the listing is for: a platform's item takes that account's share of the source. */
  async list(video: string, accountId: string): Promise<CaptionLanguages> {
    const reference = parseVideoReference(video);
    const platformItem = reference.kind === "youtube" ? null : (this.options.platforms?.match(video) ?? null);
    if (platformItem) return this.platformLanguages(platformItem, accountId);
    if (reference.kind === "youtube-without-video") {
      throw new ApiError("invalid_input", `"${video}" is a YouTube address but names no video.`);
    }
    if (reference.kind === "malformed") {
      throw new ApiError("invalid_input", `"${video}" is neither a YouTube video id nor a URL.`);
    }
    if (reference.kind === "other-url") {
      const { sources } = this.options;
      if (!sources) {
        throw new ApiError(
          "unsupported_platform",
          `${reference.url.hostname} is not YouTube, and this server transcribes no other sources.`,
        );
      }
      const source = await sources.resolve(video).catch((error: unknown) => {
        throw toApiError(error);
      });
      return publisherLanguages(source);
    }
    return this.youtubeLanguages(reference.videoId);
  }

  /** Each track with the languages YouTube translates it into; the creator's tracks first. */
  private async youtubeLanguages(videoId: string): Promise<CaptionLanguages> {
    const { youtube } = this.options;
    if (!youtube) throw new ApiError("unsupported_platform", "YouTube is not configured on this server.");
    const listing = await youtube.listCaptions(videoId).catch((error: unknown) => {
      throw toApiError(error);
    });
    const languages = creatorsFirst(listing.tracks).map((track: CaptionTrack): CaptionLanguage => {
      const targets = translationTargetsOf(track, listing.translationLanguages);
      return {
        language: track.language,
        name: track.name,
        kind: track.kind,
        translatable: targets.length > 0,
        translation_targets: targets.map((target) => ({ language: target.languageCode, name: target.languageName })),
      };
    });
    return { kind: "caption_languages", video_id: videoId, platform: "youtube", languages };
  }

  /** A platform's tracks; only the original-language track has targets: the platform's translations of it. */
  private async platformLanguages({ source, ref }: SourceMatch, accountId: string): Promise<CaptionLanguages> {
    const details: SourceDetails = await source.resolve(ref, { accountId }).catch((error: unknown) => {
      throw toApiError(error);
    });
    const original = originalTrackOf(source, details);
    const languages = creatorsFirst(details.captions).map((track): CaptionLanguage => {
      const targets = translationTracksOf(details, track, original);
      return {
        language: track.language,
        name: null,
        kind: track.kind,
        translatable: targets.length > 0,
        translation_targets: targets.map((target) => ({ language: target.language, name: null })),
      };
    });
    return { kind: "caption_languages", video_id: details.itemId, platform: details.ref.platform, languages };
  }
}

/**
 * The transcripts a podcast feed declares for the episode (`podcast:transcript`), one per
 * language (a feed often gives one transcript in several formats); none for a media file.
 */
function publisherLanguages(source: ResolvedAudioSource): CaptionLanguages {
  const languages: CaptionLanguage[] = [];
  for (const link of source.publisherTranscripts) {
    const language = link.language ?? source.language ?? undeterminedLanguage;
    if (languages.some((listed) => listed.language.toLowerCase() === language.toLowerCase())) continue;
    languages.push({ language, name: null, kind: "publisher", translatable: false, translation_targets: [] });
  }
  return { kind: "caption_languages", video_id: source.videoId, platform: source.platform, languages };
}

function creatorsFirst<T extends { kind: "manual" | "auto" }>(tracks: readonly T[]): T[] {
  return [...tracks.filter((track) => track.kind === "manual"), ...tracks.filter((track) => track.kind === "auto")];
}
