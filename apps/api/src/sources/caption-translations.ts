import { matchingLanguage, sameWrittenLanguage } from "../adapters/youtube/language-tags.ts";
import type { CaptionTrack, PlatformSource, SourceDetails } from "./platform-source.ts";

/*
 * Translations (`translate_to`) on every platform. Each source says which tracks translate a
 * track (`PlatformSource.translations`): YouTube translates a translatable track into every
 * language it lists; the platforms read through yt-dlp list a translation as a generated track of
 * its own language. The track a translation is asked of is the one served without it.
 */

/** What `translate_to` comes to on an item: the track to serve, or why none can be. */
export type CaptionTranslation =
  | { kind: "track"; track: CaptionTrack; sourceLanguage: string | null }
  | { kind: "unavailable"; message: string; available: string[] };

/** The item's original-language track: the one served when no language is asked for, else its first generated one. */
export function originalTrackOf(source: PlatformSource, details: SourceDetails): CaptionTrack | null {
  return source.captionTrack(details, undefined) ?? details.captions.find((track) => track.kind === "auto") ?? null;
}

/**
 * The track answering `translate_to`: the track chosen as without it (by `language`, else the
 * original-language track) when it already is in that language, untranslated; else the
 * platform's translation of it into that language, when it has one. An item without captions is
 * refused with why it has none: only captions can be translated.
 */
export function chooseTranslation(
  source: PlatformSource,
  details: SourceDetails,
  language: string | undefined,
  translateTo: string,
): CaptionTranslation {
  if (details.captions.length === 0) {
    return {
      kind: "unavailable",
      message: `${source.captionless(details).message} Only captions can be translated.`,
      available: [],
    };
  }
  const original = originalTrackOf(source, details);
  const chosen = language === undefined ? original : source.captionTrack(details, language);
  if (chosen && sameWrittenLanguage(chosen.language, translateTo)) {
    return { kind: "track", track: chosen, sourceLanguage: null };
  }
  const targets = chosen ? source.translations(details, chosen) : [];
  const target = matchingLanguage(targets, translateTo, (track) => track.language);
  if (target && chosen) return { kind: "track", track: target, sourceLanguage: chosen.language };
  const available = targets.map((track) => track.language);
  const from = chosen ? `its ${chosen.language} captions` : "its captions";
  return {
    kind: "unavailable",
    message:
      available.length === 0
        ? `The platform offers no translation of ${from} (${details.url}).`
        : `The platform offers no translation of ${from} into ${translateTo} (${details.url}); it offers ${available.join(", ")}.`,
    available,
  };
}

/**
 * The tracks `translate_to` can ask of the platform's generated tracks, where the platform lists
 * a translation as a generated track of its own language beside its recognition of the original
 * speech, and keeps no mark of which is which (TikTok's machine translations): the item's
 * original-language track (`originalTrackOf`) has the platform's generated tracks in other
 * languages as its targets, one per language; no other track has any (a creator's track in
 * another language is a track, asked for by `language`, not a translation).
 */
export function generatedTranslationsOf(
  details: SourceDetails,
  track: CaptionTrack,
  original: CaptionTrack | null,
): CaptionTrack[] {
  if (track !== original) return [];
  const targets: CaptionTrack[] = [];
  for (const candidate of details.captions) {
    if (candidate.kind !== "auto" || sameWrittenLanguage(candidate.language, track.language)) continue;
    if (!targets.some((target) => target.language.toLowerCase() === candidate.language.toLowerCase())) {
      targets.push(candidate);
    }
  }
  return targets;
}
