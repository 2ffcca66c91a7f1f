import type { PodcastResolution } from "../../adapters/audio-sources/index.ts";

/**
 * What is known of an episode before its feed is read: from Apple's directory (found there by
 * the track id of an Apple Podcasts link) its GUID, enclosure, title and date; from a Spotify
 * episode its title and date.
 */
export interface EpisodeClue {
  guid: string | null;
  enclosureUrl: string | null;
  title: string | null;
  publishedAt: Date | null;
}

/**
 * Where an Apple Podcasts or Spotify episode link leads: the show's public feed (the feeds, best
 * first, when a show's name fits several) and what tells the episode apart in it.
 */
export interface EpisodeLead {
  feedUrls: string[];
  clue: EpisodeClue;
  /** The link, as its platform writes it: the transcript's `url`. */
  url: string;
  resolvedVia: Extract<PodcastResolution, "apple" | "spotify">;
}

/** What an episode of a parsed feed has that the match reads. */
export interface MatchableEpisode {
  guid: string | null;
  title: string | null;
  publishedAt: Date | null;
  enclosureUrl: string;
}

/**
 * How far apart a title's two dates may be and still be one episode's: a day given without a
 * time (Spotify's `2020-10-08`) against a feed's time in any time zone.
 */
const sameEpisodeWithinMs = 36 * 60 * 60 * 1000;

/**
 * The feed's episode the clue names: the item with the clue's GUID, else the item with its
 * enclosure, else the item whose normalised title is the clue's and whose date is within a day
 * and a half of it (the nearest, when a title recurs). Undefined when none is.
 */
export function matchEpisode<Episode extends MatchableEpisode>(
  episodes: readonly Episode[],
  clue: EpisodeClue,
): Episode | undefined {
  if (clue.guid !== null) {
    const byGuid = episodes.find((episode) => episode.guid === clue.guid);
    if (byGuid) return byGuid;
  }
  const enclosure = clue.enclosureUrl === null ? null : URL.parse(clue.enclosureUrl)?.href;
  if (enclosure) {
    const byEnclosure = episodes.find((episode) => URL.parse(episode.enclosureUrl)?.href === enclosure);
    if (byEnclosure) return byEnclosure;
  }
  const title = normalisedTitle(clue.title ?? "");
  if (title.length === 0) return undefined;
  const sameTitle = episodes.filter((episode) => normalisedTitle(episode.title ?? "") === title);
  if (clue.publishedAt === null) return sameTitle.length === 1 ? sameTitle[0] : undefined;
  const wanted = clue.publishedAt.getTime();
  const distance = (episode: Episode) =>
    episode.publishedAt === null ? Number.POSITIVE_INFINITY : Math.abs(episode.publishedAt.getTime() - wanted);
  const nearest = sameTitle
    .filter((episode) => distance(episode) <= sameEpisodeWithinMs)
    .sort((a, b) => distance(a) - distance(b));
  return nearest[0];
}

/**
 * A title as two platforms that copied it from one feed would both write it: Unicode-normalised,
 * lowercase, `&` as "and", punctuation and symbols as spaces, runs of spaces as one.
 */
export function normalisedTitle(title: string): string {
  return title
    .normalize("NFKC")
    .toLowerCase()
    .replace(/&/g, " and ")
    .replace(/[\p{P}\p{S}]+/gu, " ")
    .replace(/\s+/g, " ")
    .trim();
}
