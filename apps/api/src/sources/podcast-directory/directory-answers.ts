import { SourceError } from "../source-error.ts";

/** A show as Apple's directory lists it (a result of `kind: "podcast"`). */
export interface DirectoryShow {
  /** Apple's id of the show (`collectionId`), the `id…` of its Apple Podcasts link. */
  showId: string;
  title: string;
  /** Who publishes it (`artistName`). */
  author: string | null;
  /** Its public RSS feed; null when Apple lists none (a show only Apple serves). */
  feedUrl: string | null;
  /** Its Apple Podcasts page. */
  url: string | null;
  artworkUrl: string | null;
  /** Episodes Apple counts (`trackCount`). */
  episodeCount: number | null;
}

/** An episode as Apple's directory lists it (a result of `wrapperType: "podcastEpisode"`). */
export interface DirectoryEpisode {
  /** Apple's id of the episode (`trackId`), the `?i=` of its Apple Podcasts link. */
  trackId: string;
  showId: string | null;
  showTitle: string | null;
  /** The show's feed, as the episode's result repeats it. */
  feedUrl: string | null;
  /** The `<guid>` of the feed's item, as Apple read it. */
  guid: string | null;
  title: string | null;
  publishedAt: Date | null;
  /** The media file (`episodeUrl`): the feed's enclosure, as Apple read it. */
  enclosureUrl: string | null;
  durationSeconds: number | null;
  /** Its Apple Podcasts page. */
  url: string | null;
}

/** What one lookup or search answered, shows and episodes apart, in the directory's order. */
export interface DirectoryResults {
  shows: DirectoryShow[];
  episodes: DirectoryEpisode[];
}

/** The most results read from one answer: Apple's own cap on `limit`. */
const maxResults = 200;

/**
 * Reads a lookup or search answer of the iTunes Search API (`{resultCount, results: [...]}`).
 * Every field is checked, since the answer is a stranger's: a result of another kind, or a show
 * or episode without its id, is left out; an address that is not http(s) reads as none.
 */
export function readDirectoryAnswer(value: unknown, what: string): DirectoryResults {
  const results = isRecord(value) ? value.results : undefined;
  if (!Array.isArray(results)) {
    throw new SourceError("unparseable", `Apple's directory answered ${what} without a list of results.`);
  }
  const shows: DirectoryShow[] = [];
  const episodes: DirectoryEpisode[] = [];
  for (const result of results.slice(0, maxResults)) {
    if (!isRecord(result)) continue;
    if (result.wrapperType === "podcastEpisode") {
      const episode = episodeOf(result);
      if (episode) episodes.push(episode);
    } else if (result.kind === "podcast") {
      const show = showOf(result);
      if (show) shows.push(show);
    }
  }
  return { shows, episodes };
}

function showOf(result: Record<string, unknown>): DirectoryShow | null {
  const showId = idOf(result.collectionId) ?? idOf(result.trackId);
  const title = textOf(result.collectionName) ?? textOf(result.trackName);
  if (showId === null || title === null) return null;
  return {
    showId,
    title,
    author: textOf(result.artistName),
    feedUrl: addressOf(result.feedUrl),
    url: addressOf(result.collectionViewUrl) ?? addressOf(result.trackViewUrl),
    artworkUrl: addressOf(result.artworkUrl600) ?? addressOf(result.artworkUrl100),
    episodeCount: countOf(result.trackCount),
  };
}

function episodeOf(result: Record<string, unknown>): DirectoryEpisode | null {
  const trackId = idOf(result.trackId);
  if (trackId === null) return null;
  const milliseconds = countOf(result.trackTimeMillis);
  return {
    trackId,
    showId: idOf(result.collectionId),
    showTitle: textOf(result.collectionName),
    feedUrl: addressOf(result.feedUrl),
    guid: textOf(result.episodeGuid),
    title: textOf(result.trackName),
    publishedAt: dateOf(result.releaseDate),
    enclosureUrl: addressOf(result.episodeUrl),
    durationSeconds: milliseconds === null ? null : milliseconds / 1000,
    url: addressOf(result.trackViewUrl),
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Apple's ids are integers (below 2^53, so JSON keeps them exact); some clients send them as digits. */
function idOf(value: unknown): string | null {
  if (typeof value === "number" && Number.isSafeInteger(value) && value > 0) return String(value);
  if (typeof value === "string" && /^\d{1,16}$/.test(value)) return value;
  return null;
}

function textOf(value: unknown): string | null {
  if (typeof value !== "string") return null;
  const text = value.trim();
  return text.length > 0 ? text.slice(0, 2_000) : null;
}

function countOf(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : null;
}

function dateOf(value: unknown): Date | null {
  if (typeof value !== "string") return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

function addressOf(value: unknown): string | null {
  if (typeof value !== "string") return null;
  const url = URL.parse(value.trim());
  return url && (url.protocol === "https:" || url.protocol === "http:") ? url.href : null;
}
