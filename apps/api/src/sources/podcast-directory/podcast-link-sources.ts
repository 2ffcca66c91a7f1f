import {
  type AudioSources,
  type ClosableAudioSources,
  type FeedReader,
  feedEpisodeSource,
  type ResolvedAudioSource,
} from "../../adapters/audio-sources/index.ts";
import { ApplePodcastsEpisodes } from "../apple-podcasts/apple-podcasts-episodes.ts";
import { SourceError } from "../source-error.ts";
import { SpotifyEpisodes } from "../spotify/spotify-episodes.ts";
import type { SpotifyCredentials } from "../spotify/spotify-web-api.ts";
import { AppleDirectory } from "./apple-directory.ts";
import { type EpisodeLead, matchEpisode } from "./episode-match.ts";
import { createWebReader, type WebReaderConfig } from "./web-reader.ts";

/** A platform whose episode links lead to a public feed: Apple Podcasts, Spotify. */
interface EpisodeLinks<Link> {
  /** The link an input is, offline; null when the input is not this platform's. */
  match(input: string): Link | null;
  lead(link: Link, options: { signal?: AbortSignal }): Promise<EpisodeLead>;
}

/** An input claimed offline: how to find its lead, or null when it is not the platform's. */
type LinkClaim = (input: string) => ((options: { signal?: AbortSignal }) => Promise<EpisodeLead>) | null;

function claimOf<Link>(platform: EpisodeLinks<Link>): LinkClaim {
  return (input) => {
    const link = platform.match(input);
    return link === null ? null : (options) => platform.lead(link, options);
  };
}

/**
 * The podcast path with Apple Podcasts and Spotify episode links in front of it: such a link is
 * turned into "this feed, this episode" (`EpisodeLead`), the feed is read as a feed URL is, and
 * from there the episode is any feed's episode (its publisher's transcript first, else speech
 * recognition). Every other input, and every other call, goes to the web sources as before.
 * Failures of the links are `SourceError`s; the web sources' pass unchanged.
 */
export class PodcastLinkSources implements AudioSources, FeedReader {
  constructor(
    private readonly web: AudioSources & FeedReader,
    private readonly claims: readonly LinkClaim[],
  ) {}

  async resolve(input: string, options: { episode?: string; signal?: AbortSignal } = {}): Promise<ResolvedAudioSource> {
    for (const claim of this.claims) {
      const lead = claim(input);
      if (lead) return this.episodeOf(await lead(options), options.signal);
    }
    return this.web.resolve(input, options);
  }

  readFeed(feedUrl: string, options?: { signal?: AbortSignal }) {
    return this.web.readFeed(feedUrl, options);
  }

  publisherTranscript(...args: Parameters<AudioSources["publisherTranscript"]>) {
    return this.web.publisherTranscript(...args);
  }

  chapters(...args: Parameters<AudioSources["chapters"]>) {
    return this.web.chapters(...args);
  }

  isReachable(...args: Parameters<AudioSources["isReachable"]>) {
    return this.web.isReachable(...args);
  }

  download(...args: Parameters<AudioSources["download"]>) {
    return this.web.download(...args);
  }

  /** The lead's episode in the first of its feeds that lists it. */
  private async episodeOf(lead: EpisodeLead, signal: AbortSignal | undefined): Promise<ResolvedAudioSource> {
    for (const feedUrl of lead.feedUrls) {
      const feed = await this.web.readFeed(feedUrl, signal ? { signal } : {});
      const episode = matchEpisode(feed.episodes, lead.clue);
      if (episode) return feedEpisodeSource(feed, new URL(feedUrl), episode, lead);
    }
    const { title, publishedAt } = lead.clue;
    const named =
      title === null
        ? "the episode"
        : `"${title}"${publishedAt ? ` of ${publishedAt.toISOString().slice(0, 10)}` : ""}`;
    throw new SourceError(
      "episode_not_in_feed",
      `${lead.url} is ${named}, which the show's public feed (${lead.feedUrls.join(", ")}) does not list by its GUID, enclosure, or title and date.`,
      { candidates: lead.feedUrls },
    );
  }
}

/** How Apple's directory and Spotify are reached, and Spotify's Web API credentials when the operator set them. */
export interface PodcastLinksConfig extends WebReaderConfig {
  spotify: SpotifyCredentials | null;
}

/** The web sources behind Apple Podcasts and Spotify links, and the shutdown of both. */
export function withPodcastLinks(web: ClosableAudioSources, config: PodcastLinksConfig): ClosableAudioSources {
  const reader = createWebReader(config);
  const directory = new AppleDirectory(reader);
  const sources = new PodcastLinkSources(web, [
    claimOf(new ApplePodcastsEpisodes(directory)),
    claimOf(new SpotifyEpisodes(reader, directory, config.spotify)),
  ]);
  return Object.assign(sources, {
    close: async () => {
      await Promise.all([web.close(), reader.close()]);
    },
  });
}
