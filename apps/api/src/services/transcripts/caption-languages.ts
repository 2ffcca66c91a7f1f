import type { Schema } from "@verbatim/contract";
import type { CaptionTrack } from "../../sources/platform-source.ts";
import type { SourceRegistry } from "../../sources/registry.ts";
import { SourceError } from "../../sources/source-error.ts";
import { toApiError } from "../failures/index.ts";

type CaptionLanguages = Schema<"CaptionLanguages">;
type CaptionLanguage = Schema<"CaptionLanguage">;

/**
 * The caption tracks of an item, as `POST /transcripts/languages` lists them, without reading any
 * track's words: the tracks its source resolves (YouTube's player response, a platform's
 * details, a podcast's publisher transcripts; none for a media file), each with the languages
 * the platform translates it into. An input is matched as `POST /transcripts/video` matches it,
 * with the same input errors.
 */
export class CaptionLanguageLists {
  constructor(private readonly sources: SourceRegistry) {}

  /** `accountId` is whom the listing is for: a platform's item takes that account's share of the source. */
  async list(video: string, accountId: string): Promise<CaptionLanguages> {
    const match = this.sources.match(video);
    if (match instanceof SourceError) throw toApiError(match);
    const { source, ref } = match;
    const details = await source.resolve(ref, { accountId }).catch((error: unknown) => {
      throw toApiError(error);
    });
    const languages = listed(details.captions).map((track): CaptionLanguage => {
      const targets = source.translations(details, track);
      return {
        language: track.language,
        name: track.name ?? null,
        kind: track.kind,
        translatable: targets.length > 0,
        translation_targets: targets.map((target) => ({ language: target.language, name: target.name ?? null })),
      };
    });
    return { kind: "caption_languages", video_id: details.itemId, platform: details.ref.platform, languages };
  }
}

/**
 * The tracks as listed: the creator's (and a publisher's) first, then the platform's generated
 * ones, one per language, kind and name (a feed often gives one transcript in several formats).
 */
function listed(tracks: readonly CaptionTrack[]): CaptionTrack[] {
  const ordered = [
    ...tracks.filter((track) => track.kind !== "auto"),
    ...tracks.filter((track) => track.kind === "auto"),
  ];
  return ordered.filter(
    (track, index) =>
      ordered.findIndex(
        (other) =>
          other.language.toLowerCase() === track.language.toLowerCase() &&
          other.kind === track.kind &&
          (other.name ?? null) === (track.name ?? null),
      ) === index,
  );
}
