/** What Spotify says of an episode before its feed is found: enough to find the show and the episode in it. */
export interface SpotifyEpisodeFacts {
  title: string;
  /** The show's name, as Spotify (and so the show's feed) writes it. */
  show: string;
  /** Who publishes the show, when Spotify says it (its Web API does). */
  publisher: string | null;
  /** The release date; a day without a time reads as that day's midnight UTC. */
  publishedAt: Date | null;
}

/**
 * An episode's facts from its public page (the `<meta>` values, lowercased keys) and the title
 * its oEmbed answer gave: Spotify writes the show's name in `og:description` as
 * "{show} · Episode" (older pages: `description` "Listen to this episode from {show} on
 * Spotify. …") and the date in `music:release_date`. Null when the page names no show.
 */
export function episodeFactsOfPage(
  meta: Record<string, string>,
  oembedTitle: string | null,
): SpotifyEpisodeFacts | null {
  const title = oembedTitle?.trim() || meta["og:title"]?.trim() || meta["twitter:title"]?.trim();
  const show =
    showOfDescription(meta["og:description"]) ??
    showOfListenTo(meta.description) ??
    showOfListenTo(meta["og:description"]);
  if (!title || !show) return null;
  return { title, show, publisher: null, publishedAt: releaseDateOf(meta["music:release_date"]) };
}

/** `{show} · Episode`: the show's name is what stands before the last ` · `. */
function showOfDescription(description: string | undefined): string | null {
  const at = description?.lastIndexOf(" · ") ?? -1;
  if (
    description === undefined ||
    at <= 0 ||
    description
      .slice(at + 3)
      .trim()
      .toLowerCase() !== "episode"
  )
    return null;
  return description.slice(0, at).trim() || null;
}

/** `Listen to this episode from {show} on Spotify. …`, read with plain string tests. */
function showOfListenTo(description: string | undefined): string | null {
  const opening = "Listen to this episode from ";
  if (!description?.startsWith(opening)) return null;
  const end = description.indexOf(" on Spotify", opening.length);
  return end > opening.length ? description.slice(opening.length, end).trim() : null;
}

/** A release date as Spotify writes it: `2020-10-08`, or an ISO timestamp; a year or a month alone is too vague to match by. */
export function releaseDateOf(value: string | undefined | null): Date | null {
  const text = value?.trim() ?? "";
  if (!/^\d{4}-\d{2}-\d{2}(?:T[\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$/.test(text)) return null;
  const date = new Date(text.length === 10 ? `${text}T00:00:00Z` : text);
  return Number.isNaN(date.getTime()) ? null : date;
}
