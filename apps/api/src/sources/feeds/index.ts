import { createPublicFetch } from "../../adapters/net/public-fetch.ts";
import { IsolatedParser } from "../../adapters/parsing/isolated-parser.ts";
import type { ListingSource } from "../listing-source.ts";
import { createPodcastDirectory } from "../podcast-directory/index.ts";
import { PodcastShowListings } from "../podcast-directory/show-listings.ts";
import type { SpotifyCredentials } from "../spotify/spotify-web-api.ts";
import { FeedDocuments } from "./feed-documents.ts";
import { FeedListings } from "./feed-listings.ts";

/** How feeds are reached for their lists. */
export interface FeedListingsConfig {
  /** `VERBATIM_ALLOW_PRIVATE_TARGETS=1`: private, loopback and link-local addresses may be fetched. */
  allowPrivateTargets: boolean;
  /** `VERBATIM_CA_FILE` read by `caCertificatesFrom`: the certificate authorities TLS connections trust. */
  ca?: readonly string[];
  /** `VERBATIM_PROXY_URLS`: feeds and pages are fetched through these, in turn, as every upstream call is. */
  proxyUrls?: readonly string[];
  /** Milliseconds to connect, to get an answer's headers, and for each pause in its body; default 15 s. */
  requestTimeoutMs?: number;
  /** Milliseconds one feed or page may take in all; default 60 s. */
  documentTimeoutMs?: number;
  /** Bytes of one feed or page at most; default 20 MiB. */
  feedMaxBytes?: number;
  /** `VERBATIM_SPOTIFY_CLIENT_ID` and `…_SECRET`: Spotify's Web API names a Spotify show; without them, its public oEmbed. */
  spotify: SpotifyCredentials | null;
}

/** The podcast listing sources, in the registry's order, and a way to close their pooled connections and parsing thread. */
export interface ClosableFeedListings {
  /** Apple Podcasts and Spotify shows and Apple's directory search, then any feed or page (the catch-all, last). */
  members: readonly ListingSource[];
  close(): Promise<void>;
}

/** Builds the podcast listing sources on public-address fetches of their own; nothing touches the network until a call. */
export function createFeedListings(config: FeedListingsConfig): ClosableFeedListings {
  const fetch = createPublicFetch({
    allowPrivateTargets: config.allowPrivateTargets,
    timeoutMs: config.requestTimeoutMs ?? 15_000,
    ...(config.ca === undefined ? {} : { ca: config.ca }),
    ...(config.proxyUrls === undefined ? {} : { proxyUrls: config.proxyUrls }),
  });
  const parser = new IsolatedParser();
  const documents = new FeedDocuments(fetch, parser, {
    feedMaxBytes: config.feedMaxBytes ?? 20 * 1024 * 1024,
    documentTimeoutMs: config.documentTimeoutMs ?? 60_000,
    maxFeedCandidates: 3,
  });
  const directory = createPodcastDirectory({
    allowPrivateTargets: config.allowPrivateTargets,
    spotify: config.spotify,
    ...(config.ca === undefined ? {} : { ca: config.ca }),
    ...(config.proxyUrls === undefined ? {} : { proxyUrls: config.proxyUrls }),
  });
  return {
    members: [new PodcastShowListings(directory, documents, directory.spotifyWebApi), new FeedListings(documents)],
    close: async () => {
      await Promise.all([fetch.close(), parser.close(), directory.close()]);
    },
  };
}
