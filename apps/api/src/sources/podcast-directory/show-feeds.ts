import { SourceError } from "../source-error.ts";
import type { AppleDirectory, Country } from "./apple-directory.ts";
import type { DirectoryEpisode, DirectoryShow } from "./directory-answers.ts";
import { nearestFeeds } from "./show-match.ts";

/** A show with a public feed, and its newest episodes as the directory lists them. */
export interface ShowFeed {
  show: DirectoryShow;
  feedUrl: string;
  /** Newest first. */
  episodes: DirectoryEpisode[];
}

/**
 * An Apple Podcasts show's public feed and newest episodes, by the show's id. `unavailable` when
 * the directory lists no such show; `no_public_feed` when it lists no feed (a show Apple alone
 * serves), with the feeds of the shows nearest by name as candidates.
 */
export async function publicFeedOf(
  directory: AppleDirectory,
  showId: string,
  options: { country?: Country; signal?: AbortSignal } = {},
): Promise<ShowFeed> {
  const found = await directory.show(showId, options);
  if (!found) {
    throw new SourceError(
      "unavailable",
      `Apple's directory lists no podcast id${showId} (${options.country ?? "us"} store).`,
    );
  }
  const { show, episodes } = found;
  if (show.feedUrl === null) {
    const nearest = await directory.searchShows(show.title, options);
    throw new SourceError(
      "no_public_feed",
      `"${show.title}" has no public feed in Apple's directory: it is served by Apple Podcasts alone, so there is no episode file to read.`,
      { candidates: nearestFeeds(nearest.filter((candidate) => candidate.showId !== show.showId)) },
    );
  }
  return { show, feedUrl: show.feedUrl, episodes };
}
