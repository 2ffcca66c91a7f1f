import { parseApplePodcastsLink } from "../apple-podcasts/apple-podcasts-link.ts";
import type { FeedDocuments } from "../feeds/feed-documents.ts";
import { FeedListing } from "../feeds/feed-listings.ts";
import type { Listing, ListingRequest, ListingSource } from "../listing-source.ts";
import { SourceError } from "../source-error.ts";
import { parseSpotifyLink } from "../spotify/spotify-link.ts";
import { SpotifySearch } from "../spotify/spotify-search.ts";
import type { SpotifyWebApi } from "../spotify/spotify-web-api.ts";
import { DirectorySearch, type SearchPlatform } from "./directory-search.ts";
import type { PodcastDirectory } from "./index.ts";

/** Where Spotify's search would be enabled, for a client that asked for it on a server without. */
const spotifySearchAdvice =
  "Spotify's search needs the Spotify Web API: the server's operator sets VERBATIM_SPOTIFY_CLIENT_ID and VERBATIM_SPOTIFY_CLIENT_SECRET (an app of Spotify's developer dashboard). Search with platform apple or rss meanwhile.";

/**
 * Apple Podcasts and Spotify shows as lists of their episodes, and searches of Apple's public
 * directory (`apple`: shows and episodes as Apple Podcasts links; `rss`: feeds and episode
 * audio files). Neither platform hosts a show's audio: its public feed, which Apple's directory
 * names, is read as a feed URL is, so the rows are the feed's and each `url` is an episode's
 * audio file. It comes before the feed source in the registry, which would read a show's page
 * as a page without a feed.
 */
export class PodcastShowListings implements ListingSource {
  readonly accepts = {
    channel: "an Apple Podcasts show link (podcasts.apple.com/…/id…) or a Spotify show link (open.spotify.com/show/…)",
  };
  readonly searchPlatforms: readonly string[];

  constructor(
    private readonly directory: PodcastDirectory,
    private readonly documents: FeedDocuments,
    /** Spotify's Web API, which its search needs: null when the operator gave no credentials. */
    private readonly spotifyWebApi: SpotifyWebApi | null,
  ) {
    this.searchPlatforms = spotifyWebApi === null ? ["apple", "rss"] : ["spotify", "apple", "rss"];
  }

  match(request: ListingRequest): Listing | SourceError | null {
    switch (request.kind) {
      case "channel":
        return this.matchShow(request.channel);
      case "playlist":
        return null;
      case "search":
        return this.matchSearch(request);
    }
  }

  private matchShow(input: string): Listing | SourceError | null {
    const apple = parseApplePodcastsLink(input);
    if (apple) {
      switch (apple.kind) {
        case "show":
          return this.showListing("apple", apple.url);
        case "episode":
        case "episode-without-show":
          return new SourceError(
            "item_not_list",
            `${apple.url} is an Apple Podcasts episode, not a show; the video endpoint transcribes it, and the show's link (without ?i=) lists its episodes.`,
          );
        case "other":
          return new SourceError(
            "invalid_input",
            `${apple.url} names no Apple Podcasts show: send a show's link, podcasts.apple.com/{country}/podcast/{name}/id{number}.`,
          );
      }
    }
    const spotify = parseSpotifyLink(input);
    if (!spotify) return null;
    switch (spotify.kind) {
      case "show":
        return this.showListing("spotify", spotify.url);
      case "episode":
        return new SourceError(
          "item_not_list",
          `${spotify.url} is a Spotify episode, not a show; the video endpoint transcribes it.`,
        );
      case "other":
        return new SourceError(
          "unsupported",
          `${spotify.url} is on Spotify but is no podcast show; only shows (open.spotify.com/show/…) are listed.`,
        );
    }
  }

  private matchSearch(request: Extract<ListingRequest, { kind: "search" }>): Listing | SourceError | null {
    if (request.platform === "spotify") return this.matchSpotifySearch(request);
    if (request.platform !== "apple" && request.platform !== "rss") return null;
    const platform: SearchPlatform = request.platform;
    if (request.type === "playlist") {
      return new SourceError(
        "unsupported",
        `Apple's directory has shows and episodes, no playlists: search platform ${platform} with type video (episodes) or channel (shows).`,
      );
    }
    return new DirectorySearch(this.directory, { platform, query: request.query, type: request.type });
  }

  private matchSpotifySearch(request: Extract<ListingRequest, { kind: "search" }>): Listing | SourceError {
    if (this.spotifyWebApi === null) return new SourceError("unsupported", spotifySearchAdvice);
    if (request.type === "playlist") {
      return new SourceError(
        "unsupported",
        "Spotify's search of podcasts has shows and episodes, no playlists: search with type video (episodes) or channel (shows).",
      );
    }
    return new SpotifySearch(this.spotifyWebApi, { query: request.query, type: request.type });
  }

  /**
   * One show's episodes: its public feed, found in Apple's directory at each read (a show may move
   * its feed, and the directory then names the new one), then read as any feed.
   */
  private showListing(platform: "apple" | "spotify", link: string): Listing {
    return new FeedListing(
      this.documents,
      async (signal) => new URL((await this.directory.showFeedOfLink(link, signal ? { signal } : {})).feedUrl),
      {
        platform,
        label: `the ${platform === "apple" ? "Apple Podcasts" : "Spotify"} show ${link}`,
        identity: { kind: "show", url: link },
      },
    );
  }
}
