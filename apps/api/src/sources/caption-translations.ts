import { matchingLanguage, sameWrittenLanguage } from "../adapters/youtube/caption-track-choice.ts";
import type { CaptionTrack, PlatformSource, SourceDetails } from "./platform-source.ts";

/*
 * Translations on the video platforms read through yt-dlp. A platform that translates captions
 * (TikTok's machine translations, `Source: "MT"` on its page) lists each translation as a
 * generated track of its own language, beside its recognition of the original speech, and
 * yt-dlp keeps no mark of which is which. So:
 * - the item's original-language track is the one the captions-first rule serves when no
 *   language is asked for; where that rule finds none because the platform states no language
 *   and lists several generated tracks, the first generated one (yt-dlp keeps the page's order,
 *   and TikTok's pages list the speech recognition first in the fixtures we have);
 * - the platform's generated tracks in other languages are that track's translation targets;
 *   no other track has any (a creator's track in another language is a track, asked for by
 *   `language`, not a translation).
 */

/** What `translate_to` comes to on a platform item: the track to serve, or why none can be. */
export type PlatformTranslation =
  | { kind: "track"; track: CaptionTrack; sourceLanguage: string | null }
  | { kind: "unavailable"; message: string; available: string[] };

/** The item's original-language track, of which the platform's other generated tracks are translations. */
export function originalTrackOf(source: PlatformSource, details: SourceDetails): CaptionTrack | null {
  return source.captionTrack(details, undefined) ?? details.captions.find((track) => track.kind === "auto") ?? null;
}

/** The tracks `translate_to` can ask of `track`, one per language: none unless it is the original-language track. */
export function translationTracksOf(
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

/**
 * The track answering `translate_to`: the track chosen as without it (by `language`, else the
 * original-language track) when it already is in that language, untranslated; else the
 * platform's translation of it into that language, when it has one.
 */
export function choosePlatformTranslation(
  source: PlatformSource,
  details: SourceDetails,
  language: string | undefined,
  translateTo: string,
): PlatformTranslation {
  const label = details.url;
  if (details.captions.length === 0) {
    return {
      kind: "unavailable",
      message: `${label} has no captions on ${details.ref.platform}: only captions can be translated.`,
      available: [],
    };
  }
  const original = originalTrackOf(source, details);
  const chosen = language === undefined ? original : source.captionTrack(details, language);
  if (chosen && sameWrittenLanguage(chosen.language, translateTo)) {
    return { kind: "track", track: chosen, sourceLanguage: null };
  }
  const targets = chosen ? translationTracksOf(details, chosen, original) : [];
  const target = matchingLanguage(targets, translateTo, (track) => track.language);
  if (target && chosen) return { kind: "track", track: target, sourceLanguage: chosen.language };
  const available = targets.map((track) => track.language);
  const from = chosen ? `its ${chosen.language} captions` : "its captions";
  return {
    kind: "unavailable",
    message:
      available.length === 0
        ? `${details.ref.platform} offers no translation of ${from} (${label}).`
        : `${details.ref.platform} offers no translation of ${from} into ${translateTo} (${label}); it offers ${available.join(", ")}.`,
    available,
  };
}
