import type { Schema } from "@verbatim/contract";
import type { Listing, ListingCallOptions, ListingMarker, ListingPage } from "../listing-source.ts";
import { parseSpotifyLink, spotifyIdPattern } from "./spotify-link.ts";
import {
  type SpotifyFoundEpisode,
  type SpotifyFoundShow,
  type SpotifyWebApi,
  spotifySearchMaxResults,
} from "./spotify-web-api.ts";

/**
 * A search of Spotify's podcasts through its Web API: episodes (`type: video`) as their
 * Spotify links, which `POST /transcripts/video` takes, and shows (`type: channel`) as theirs,
 * which `POST /transcripts/channel` takes. A row's `videoId` is Spotify's episode id: the
 * transcript of its link carries the id of the episode in the show's public feed, which Spotify
 * does not name and which only reading that feed finds. Spotify pages its search by offset, 50
 * results a call and none past the 1,000th.
 */
export class SpotifySearch implements Listing {
  readonly platform = "spotify";
  readonly monitorPlatform = "podcast";
  readonly options = [];
  readonly label: string;
  readonly identity: Record<string, unknown>;

  constructor(
    private readonly webApi: SpotifyWebApi,
    private readonly search: { query: string; type: "video" | "channel" },
  ) {
    this.label = "Spotify's search";
    this.identity = { kind: "search", platform: "spotify", ...search };
  }

  markerOf(sinceVideoId: string): ListingMarker {
    if (this.search.type !== "video") {
      return { problem: "since_video_id works only with video results.", issue: "not allowed with type channel" };
    }
    const value = sinceVideoId.trim();
    if (spotifyIdPattern.test(value)) return { itemId: value };
    const link = parseSpotifyLink(value);
    if (link?.kind === "episode") return { itemId: link.id };
    return {
      problem: "since_video_id must be a row's videoId or url in Spotify's search.",
      issue: `"${sinceVideoId}" is neither a Spotify episode id nor an episode's link`,
    };
  }

  firstPage(options: ListingCallOptions = {}): Promise<ListingPage> {
    return this.pageAt(0, options.signal);
  }

  nextPage(continuation: string, options: ListingCallOptions = {}): Promise<ListingPage> {
    const offset = Number(continuation);
    if (!/^\d+$/.test(continuation) || offset >= spotifySearchMaxResults) {
      return Promise.reject(new Error(`Spotify's search has no page at offset ${continuation}`));
    }
    return this.pageAt(offset, options.signal);
  }

  private async pageAt(offset: number, signal: AbortSignal | undefined): Promise<ListingPage> {
    const { query, type } = this.search;
    const page =
      type === "channel"
        ? await this.webApi.searchShows(query, offset, signal).then(({ found, nextOffset }) => ({
            rows: found.map(showRow),
            nextOffset,
          }))
        : await this.webApi.searchEpisodes(query, offset, signal).then(({ found, nextOffset }) => ({
            rows: found.map(episodeRow),
            nextOffset,
          }));
    return { rows: page.rows, continuation: page.nextOffset === null ? null : String(page.nextOffset) };
  }
}

function episodeRow(episode: SpotifyFoundEpisode): Schema<"VideoRow"> {
  return {
    videoId: episode.id,
    url: `https://open.spotify.com/episode/${episode.id}`,
    title: episode.name,
    duration: episode.durationSeconds,
    // Spotify's search answers an episode without its show.
    channel: null,
    publishedAt: episode.publishedAt?.toISOString() ?? null,
    stats: null,
    thumbnailUrl: episode.imageUrl,
  };
}

function showRow(show: SpotifyFoundShow): Schema<"ChannelRow"> {
  return {
    kind: "channel",
    id: show.id,
    url: `https://open.spotify.com/show/${show.id}`,
    title: show.name,
    handle: null,
    subscribers: null,
    thumbnail_url: show.imageUrl,
  };
}
