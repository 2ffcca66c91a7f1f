import { parseApplePodcastsLink } from "../apple-podcasts/apple-podcasts-link.ts";
import { SourceError } from "../source-error.ts";
import { SpotifyEpisodes } from "../spotify/spotify-episodes.ts";
import { parseSpotifyLink } from "../spotify/spotify-link.ts";
import type { SpotifyWebApi } from "../spotify/spotify-web-api.ts";
import { AppleDirectory, type Country } from "./apple-directory.ts";
import type { DirectoryEpisode, DirectoryShow } from "./directory-answers.ts";
import type { PodcastLinksConfig } from "./podcast-link-sources.ts";
import { publicFeedOf, type ShowFeed } from "./show-feeds.ts";
import { createWebReader } from "./web-reader.ts";

export type { DirectoryEpisode, DirectoryShow } from "./directory-answers.ts";
export { type EpisodeClue, type EpisodeLead, matchEpisode, normalisedTitle } from "./episode-match.ts";
export { type PodcastLinksConfig, withPodcastLinks } from "./podcast-link-sources.ts";
export type { ShowFeed } from "./show-feeds.ts";

/**
 * Apple's public podcast directory as listings need it: a show's public feed and recent
 * episodes, by its Apple id or its Apple Podcasts or Spotify show link, and searches of shows
 * and episodes. Failures are `SourceError`s: `unavailable` (no such show), `no_public_feed` (a
 * show its platform alone serves, with the nearest feeds as candidates), `invalid_input` (a link
 * that names no show), and the transient kinds.
 */
export class PodcastDirectory {
  constructor(
    private readonly directory: AppleDirectory,
    private readonly spotify: SpotifyEpisodes,
  ) {}

  /** Spotify's Web API, when the operator gave its credentials: its search has no public equivalent. */
  get spotifyWebApi(): SpotifyWebApi | null {
    return this.spotify.webApi;
  }

  /** An Apple show id's public feed and newest episodes. */
  showFeed(showId: string, options: { country?: Country; signal?: AbortSignal } = {}): Promise<ShowFeed> {
    return publicFeedOf(this.directory, showId, options);
  }

  /**
   * The public feed of the show an Apple Podcasts or Spotify show link names (an episode link
   * names its show too): Apple's by the link's id, Spotify's by the show's name in Apple's
   * directory, the best of the shows of that name.
   */
  async showFeedOfLink(input: string, options: { signal?: AbortSignal } = {}): Promise<ShowFeed> {
    const apple = parseApplePodcastsLink(input);
    if (apple?.kind === "show" || apple?.kind === "episode") {
      return publicFeedOf(this.directory, apple.showId, { country: apple.country, ...options });
    }
    const spotify = parseSpotifyLink(input);
    if (spotify?.kind === "show") {
      const { shows } = await this.spotify.showFeeds(spotify, options);
      const [best] = shows;
      if (best?.feedUrl) return publicFeedOf(this.directory, best.showId, options);
    }
    throw new SourceError("invalid_input", `${input} is neither an Apple Podcasts nor a Spotify show link.`);
  }

  /** Shows or episodes whose names match `term`, by the directory's relevance. */
  search(
    term: string,
    options: { kind: "shows"; country?: Country; limit?: number; signal?: AbortSignal },
  ): Promise<DirectoryShow[]>;
  search(
    term: string,
    options: { kind: "episodes"; country?: Country; limit?: number; signal?: AbortSignal },
  ): Promise<DirectoryEpisode[]>;
  search(
    term: string,
    { kind, ...options }: { kind: "shows" | "episodes"; country?: Country; limit?: number; signal?: AbortSignal },
  ): Promise<DirectoryShow[] | DirectoryEpisode[]> {
    return kind === "shows" ? this.directory.searchShows(term, options) : this.directory.searchEpisodes(term, options);
  }
}

/** The directory on a reader of its own (the same egress rules as `withPodcastLinks`), and its shutdown. */
export function createPodcastDirectory(config: PodcastLinksConfig): PodcastDirectory & { close(): Promise<void> } {
  const reader = createWebReader(config);
  const directory = new AppleDirectory(reader);
  return Object.assign(new PodcastDirectory(directory, new SpotifyEpisodes(reader, directory, config.spotify)), {
    close: () => reader.close(),
  });
}
