import type { DirectoryShow } from "./directory-answers.ts";
import { normalisedTitle } from "./episode-match.ts";

/** The most feeds a failure offers as candidates, and tried when several shows bear one name. */
export const maxCandidateFeeds = 3;

/**
 * The directory's shows with a public feed that are the show named `name`: the same normalised
 * title, one per feed, in the directory's order. When several feeds bear the name and the
 * publisher is known, those of that publisher come first. A show whose name only contains
 * `name` ("Science Vs" for "Science") is not it: a platform's exclusive must not become another show.
 */
export function showsNamed(shows: readonly DirectoryShow[], name: string, publisher: string | null): DirectoryShow[] {
  const wanted = normalisedTitle(name);
  const feeds = new Set<string>();
  const named = shows.filter((show) => {
    if (show.feedUrl === null || feeds.has(show.feedUrl) || normalisedTitle(show.title) !== wanted) return false;
    feeds.add(show.feedUrl);
    return true;
  });
  if (publisher === null) return named.slice(0, maxCandidateFeeds);
  const byPublisher = normalisedTitle(publisher);
  const isPublisher = (show: DirectoryShow) => show.author !== null && normalisedTitle(show.author) === byPublisher;
  return [...named.filter(isPublisher), ...named.filter((show) => !isPublisher(show))].slice(0, maxCandidateFeeds);
}

/** The public feeds of the first shows the directory found, for a client to try when none is the one named. */
export function nearestFeeds(shows: readonly DirectoryShow[]): string[] {
  const feeds = shows.map((show) => show.feedUrl).filter((feed): feed is string => feed !== null);
  return [...new Set(feeds)].slice(0, maxCandidateFeeds);
}
