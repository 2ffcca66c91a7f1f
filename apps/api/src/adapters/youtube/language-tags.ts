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
