import { type AppleDirectory, recentEpisodesListed } from "../podcast-directory/apple-directory.ts";
import type { EpisodeLead } from "../podcast-directory/episode-match.ts";
import { publicFeedOf } from "../podcast-directory/show-feeds.ts";
import { SourceError } from "../source-error.ts";
import { type ApplePodcastsLink, parseApplePodcastsLink } from "./apple-podcasts-link.ts";

/**
 * Apple Podcasts episode links. Apple serves a show's episodes from the publisher's own feed,
 * so a link leads there: the directory's lookup of the show gives the feed and the newest
 * episodes, and the link's track id picks the episode, whose GUID, enclosure, title and date
 * find it in the feed.
 */
export class ApplePodcastsEpisodes {
  constructor(private readonly directory: AppleDirectory) {}

  /** The link an input is, offline; null when it is not on Apple Podcasts. */
  match(input: string): ApplePodcastsLink | null {
    return parseApplePodcastsLink(input);
  }

  async lead(link: ApplePodcastsLink, options: { signal?: AbortSignal } = {}): Promise<EpisodeLead> {
    switch (link.kind) {
      case "show":
        throw new SourceError(
          "listing",
          `${link.url} is an Apple Podcasts show, not an episode: send the link of one episode (with ?i=), or list the show's episodes with POST /transcripts/channel.`,
        );
      case "episode-without-show":
        throw new SourceError(
          "invalid_input",
          `${link.url} names an episode without its show's id (/id<number>), which Apple's directory finds shows by: send the link Apple Podcasts shares.`,
        );
      case "other":
        throw new SourceError("unsupported", `${link.url} is an Apple Podcasts page that names no podcast episode.`);
    }
    const { show, feedUrl, episodes } = await publicFeedOf(this.directory, link.showId, {
      country: link.country,
      ...options,
    });
    const episode = episodes.find((candidate) => candidate.trackId === link.episodeId);
    if (!episode) {
      throw new SourceError(
        "episode_not_in_feed",
        `Apple's directory lists no episode ${link.episodeId} among the ${recentEpisodesListed} newest of "${show.title}"; send the episode's enclosure URL, or its feed with \`episode\`.`,
        { candidates: [feedUrl] },
      );
    }
    return {
      feedUrls: [feedUrl],
      clue: {
        guid: episode.guid,
        enclosureUrl: episode.enclosureUrl,
        title: episode.title,
        publishedAt: episode.publishedAt,
      },
      url: link.url,
      resolvedVia: "apple",
    };
  }
}
