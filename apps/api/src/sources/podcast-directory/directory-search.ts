import type { Schema } from "@verbatim/contract";
import { feedEpisodeVideoId, mediaVideoId } from "../../adapters/audio-sources/web-audio-sources.ts";
import { parseApplePodcastsLink } from "../apple-podcasts/apple-podcasts-link.ts";
import { feedEpisodeMarker } from "../feeds/feed-listings.ts";
import type { Listing, ListingCallOptions, ListingMarker, ListingPage, ListRow } from "../listing-source.ts";
import type { DirectoryEpisode, DirectoryShow } from "./directory-answers.ts";
import type { PodcastDirectory } from "./index.ts";

/** The search platforms Apple's directory answers. */
export type SearchPlatform = "apple" | "rss";

/** The most results one search reads: Apple's own cap. Its answer is one page, paged through here. */
const resultsPerSearch = 200;

/**
 * A search of Apple's public directory, one upstream page. `apple` answers Apple Podcasts links
 * (episodes for `type: video`, shows for `channel`); `rss` answers what any podcast app reads
 * (episodes as their audio files, shows as their feeds). Each row's `url` is accepted as it is:
 * an episode's by `POST /transcripts/video`, a show's by `POST /transcripts/channel`. Results
 * without a public feed are left out, since nothing could read them.
 */
export class DirectorySearch implements Listing {
  readonly monitorPlatform = "podcast";
  readonly options = [];
  readonly platform: SearchPlatform;
  readonly label: string;
  readonly identity: Record<string, unknown>;

  constructor(
    private readonly directory: PodcastDirectory,
    private readonly search: { platform: SearchPlatform; query: string; type: "video" | "channel" },
  ) {
    this.platform = search.platform;
    this.label = `Apple's directory search (platform ${search.platform})`;
    this.identity = { kind: "search", ...search };
  }

  markerOf(sinceVideoId: string): ListingMarker {
    if (this.search.type !== "video") {
      return {
        problem: "since_video_id works only with video results.",
        issue: `not allowed with type ${this.search.type}`,
      };
    }
    if (this.search.platform === "rss") return feedEpisodeMarker(sinceVideoId);
    const value = sinceVideoId.trim();
    if (/^pod_[0-9a-f]{16}$/.test(value)) return { itemId: value };
    return {
      problem: "since_video_id must be a row's videoId in Apple's search.",
      issue: `"${sinceVideoId}" is no row's videoId`,
    };
  }

  async firstPage(options: ListingCallOptions = {}): Promise<ListingPage> {
    const call = { limit: resultsPerSearch, ...(options.signal ? { signal: options.signal } : {}) };
    const { platform, query } = this.search;
    const rows: ListRow[] =
      this.search.type === "channel"
        ? (await this.directory.search(query, { kind: "shows", ...call })).flatMap((show) => showRow(show, platform))
        : (await this.directory.search(query, { kind: "episodes", ...call })).flatMap((episode) =>
            platform === "apple" ? appleEpisodeRow(episode) : audioFileRow(episode),
          );
    return { rows, continuation: null };
  }

  nextPage(continuation: string): Promise<ListingPage> {
    // A search of the directory is one page, so no continuation was ever issued for it.
    return Promise.reject(new Error(`a directory search has no page after its first (continuation ${continuation})`));
  }
}

/** A show: its Apple Podcasts link, or its feed; none without a public feed. */
function showRow(show: DirectoryShow, platform: SearchPlatform): Schema<"ChannelRow">[] {
  if (show.feedUrl === null) return [];
  return [
    {
      kind: "channel",
      id: show.showId,
      url: platform === "apple" ? `https://podcasts.apple.com/us/podcast/id${show.showId}` : show.feedUrl,
      title: show.title,
      handle: null,
      subscribers: null,
      thumbnail_url: show.artworkUrl,
    },
  ];
}

/**
 * An episode as its Apple Podcasts link. Its `videoId` is the one its transcript carries when
 * Apple lists the feed item's GUID; without one, Apple's copy of the enclosure stands in, which
 * matches only when the feed's is the same address.
 */
function appleEpisodeRow(episode: DirectoryEpisode): Schema<"VideoRow">[] {
  const key = episode.guid ?? episode.enclosureUrl;
  const link = episodeLink(episode);
  if (episode.feedUrl === null || key === null || link === null) return [];
  return [videoRow(episode, link, feedEpisodeVideoId(episode.feedUrl, key))];
}

/** An episode as its audio file, which the video endpoint transcribes as that file. */
function audioFileRow(episode: DirectoryEpisode): Schema<"VideoRow">[] {
  const file = episode.enclosureUrl === null ? null : URL.parse(episode.enclosureUrl);
  if (file === null) return [];
  return [videoRow(episode, file.href, mediaVideoId(file))];
}

function videoRow(episode: DirectoryEpisode, url: string, videoId: string): Schema<"VideoRow"> {
  return {
    videoId,
    url,
    title: episode.title ?? url,
    duration: episode.durationSeconds,
    channel: episode.showTitle,
    publishedAt: episode.publishedAt?.toISOString() ?? null,
    stats: null,
    thumbnailUrl: null,
  };
}

/** The episode's canonical Apple Podcasts link (without Apple's tracking parameters). */
function episodeLink(episode: DirectoryEpisode): string | null {
  const listed = episode.url === null ? null : parseApplePodcastsLink(episode.url);
  if (listed?.kind === "episode") return listed.url;
  return episode.showId === null
    ? null
    : `https://podcasts.apple.com/us/podcast/id${episode.showId}?i=${episode.trackId}`;
}
