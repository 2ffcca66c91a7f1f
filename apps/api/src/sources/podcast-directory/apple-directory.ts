import { SourceError } from "../source-error.ts";
import {
  type DirectoryEpisode,
  type DirectoryResults,
  type DirectoryShow,
  readDirectoryAnswer,
} from "./directory-answers.ts";
import type { WebReader } from "./web-reader.ts";

/** Where Apple's public directory (the iTunes Search API) answers lookups and searches. */
const directoryOrigin = "https://itunes.apple.com";

/** The most bytes of one answer: 200 episodes with their descriptions stay well under it. */
const answerMaxBytes = 4 * 1024 * 1024;

/** The most episodes a lookup returns: Apple's cap, newest first. */
export const recentEpisodesListed = 200;

/** A store front, as Apple Podcasts links name it (`us`, `gb`); the directory's default is `us`. */
export type Country = string;

/** A show and its newest episodes, as a lookup by its id gives them. */
export interface DirectoryShowEpisodes {
  show: DirectoryShow;
  /** Newest first, at most `recentEpisodesListed`. */
  episodes: DirectoryEpisode[];
}

/**
 * Apple's public podcast directory, which knows a show's public feed and its recent episodes
 * (each with the track id of its Apple Podcasts link and the GUID of the feed's item). Lookups
 * and searches are documented at https://performance-partners.apple.com/search-api.
 */
export class AppleDirectory {
  constructor(private readonly reader: WebReader) {}

  /** A show by its id, with its newest episodes; null when the directory lists no such show. */
  async show(
    showId: string,
    options: { country?: Country; signal?: AbortSignal } = {},
  ): Promise<DirectoryShowEpisodes | null> {
    const results = await this.ask(
      "lookup",
      { id: showId, entity: "podcastEpisode", limit: String(recentEpisodesListed), ...countryOf(options.country) },
      `the show ${showId}`,
      options.signal,
    );
    const show = results.shows.find((candidate) => candidate.showId === showId);
    if (!show) return null;
    const episodes = results.episodes.filter((episode) => episode.showId === null || episode.showId === showId);
    return { show, episodes };
  }

  /** Shows whose name or publisher matches `term`, by the directory's relevance. */
  async searchShows(
    term: string,
    options: { country?: Country; limit?: number; signal?: AbortSignal } = {},
  ): Promise<DirectoryShow[]> {
    const results = await this.ask(
      "search",
      { term, media: "podcast", entity: "podcast", limit: String(options.limit ?? 10), ...countryOf(options.country) },
      `a search for ${JSON.stringify(term)}`,
      options.signal,
    );
    return results.shows;
  }

  /** Episodes whose title or show matches `term`, by the directory's relevance. */
  async searchEpisodes(
    term: string,
    options: { country?: Country; limit?: number; signal?: AbortSignal } = {},
  ): Promise<DirectoryEpisode[]> {
    const results = await this.ask(
      "search",
      {
        term,
        media: "podcast",
        entity: "podcastEpisode",
        limit: String(options.limit ?? 10),
        ...countryOf(options.country),
      },
      `a search for ${JSON.stringify(term)}`,
      options.signal,
    );
    return results.episodes;
  }

  private async ask(
    path: "lookup" | "search",
    query: Record<string, string>,
    what: string,
    signal: AbortSignal | undefined,
  ): Promise<DirectoryResults> {
    const url = new URL(`/${path}?${new URLSearchParams(query)}`, directoryOrigin);
    const answer = await this.reader.json(url, { maxBytes: answerMaxBytes, ...(signal ? { signal } : {}) });
    if (answer.status < 200 || answer.status > 299) {
      // The directory answers 403 and 429 to clients it throttles, and 5xx when it fails.
      throw new SourceError("blocked", `Apple's directory answered HTTP ${answer.status} to ${what}.`);
    }
    return readDirectoryAnswer(answer.value, what);
  }
}

function countryOf(country: Country | undefined): Record<string, string> {
  return country ? { country } : {};
}
