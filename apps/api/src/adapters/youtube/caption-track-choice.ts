import type { CaptionTrack } from "./player-response.ts";

/**
 * Chooses the track to return for a requested BCP-47 language: the exact language (manual
 * before automatic), then the base language (`pt` for `pt-BR`, or any `pt-*`), then the manual
 * track in the video's original language, then the automatic track. Without a requested
 * language the original-language choice applies directly. The original language is the one
 * YouTube's speech recognition ran on (the automatic track), else the default track's.
 */
export function chooseCaptionTrack(
  tracks: readonly CaptionTrack[],
  requested: string | undefined,
  defaultTrackIndex: number | null,
): CaptionTrack | undefined {
  if (requested) {
    const wanted = requested.toLowerCase();
    const base = baseLanguage(wanted);
    const exact = preferManual(tracks.filter((track) => track.language.toLowerCase() === wanted));
    if (exact) return exact;
    const sameBase = preferManual(tracks.filter((track) => baseLanguage(track.language.toLowerCase()) === base));
    if (sameBase) return sameBase;
  }
  const automatic = tracks.find((track) => track.kind === "auto");
  const defaultTrack = defaultTrackIndex === null ? undefined : tracks[defaultTrackIndex];
  const original = automatic?.language ?? defaultTrack?.language;
  const originalManual =
    original === undefined
      ? undefined
      : tracks.find((track) => track.kind === "manual" && baseLanguage(track.language) === baseLanguage(original));
  return originalManual ?? automatic ?? defaultTrack ?? tracks[0];
}

/** The primary subtag of a BCP-47 tag, lower-cased: `pt` of `pt-BR`. */
export function baseLanguage(language: string): string {
  const lower = language.toLowerCase();
  return lower.split("-")[0] ?? lower;
}

/** Whether two BCP-47 tags name the same language, whatever their regions or scripts (`en-GB` and `en`). */
export function sameBaseLanguage(a: string, b: string): boolean {
  return baseLanguage(a) === baseLanguage(b);
}

/**
 * Whether two BCP-47 tags name the same language in the same script: `en-GB` and `en` do, and
 * so do `zh-CN` and `zh-Hans`, but `zh-Hans` and `zh-Hant` do not, for a translation between
 * them is one people ask for. A tag without a script takes its language's usual one (CLDR's
 * likely subtags, through `Intl.Locale`).
 */
export function sameWrittenLanguage(a: string, b: string): boolean {
  return sameBaseLanguage(a, b) && scriptOf(a) === scriptOf(b);
}

function scriptOf(language: string): string | undefined {
  try {
    return new Intl.Locale(language).maximize().script;
  } catch {
    return undefined;
  }
}

/**
 * The entry of `candidates` that `requested` names: the same tag (case aside), else the first of
 * the same base language, as tracks are chosen.
 */
export function matchingLanguage<T>(
  candidates: readonly T[],
  requested: string,
  languageOf: (candidate: T) => string,
): T | undefined {
  const wanted = requested.toLowerCase();
  return (
    candidates.find((candidate) => languageOf(candidate).toLowerCase() === wanted) ??
    candidates.find((candidate) => sameBaseLanguage(languageOf(candidate), wanted))
  );
}

function preferManual(candidates: readonly CaptionTrack[]): CaptionTrack | undefined {
  return candidates.find((track) => track.kind === "manual") ?? candidates[0];
}
