import type { SpeechEngine } from "../adapters/asr/index.ts";
import { meteredSpeechEngine } from "../adapters/asr/metered-engine.ts";
import {
  type AudioSourcesConfig,
  type ClosableAudioSources,
  createAudioSources,
} from "../adapters/audio-sources/index.ts";
import { withDownloadDefaults } from "../adapters/net/media-download.ts";
import { createPublicFetch, type PublicFetch } from "../adapters/net/public-fetch.ts";
import { createYoutubeAdapter, type YoutubeAdapter } from "../adapters/youtube/index.ts";
import type { Config } from "../config.ts";
import type { Logger } from "../logger.ts";
import type { ServiceMetrics } from "../metrics.ts";
import { type ClosableFeedListings, createFeedListings } from "../sources/feeds/index.ts";
import { type PlatformSources, startPlatformSources, ytdlpAbsentAdvice } from "../sources/index.ts";
import { createLiveSources, type LiveSource, type LiveSources } from "../sources/live/index.ts";
import { withPodcastLinks } from "../sources/podcast-directory/index.ts";
import type { SpotifyCredentials } from "../sources/spotify/spotify-web-api.ts";

/** The upstreams a deployment reads, built from its configuration: what the tests replace with doubles. */
export interface Adapters {
  /** Podcasts, feeds, media files and publisher transcripts; Apple Podcasts and Spotify links lead to a show's feed. */
  audioSources: ClosableAudioSources;
  /** Feeds as lists, for channels, playlists and monitors. */
  feedListings: ClosableFeedListings;
  youtube: YoutubeAdapter;
  /** The video platforms yt-dlp reads, behind the egress guard. */
  platformSources: PlatformSources;
  /** The speech engine, counted in the process's metrics. */
  engine: SpeechEngine;
  /** Live streams, read as podcasts and media files are: under the public-address rule, through the same proxies. */
  liveSources: LiveSources;
  liveFetch: PublicFetch;
  /** Stops every adapter's connections, threads and child processes. */
  close(): Promise<void>;
}

/**
 * How adapters reach their upstreams: `VERBATIM_PROXY_URLS`, the authorities of `VERBATIM_CA_FILE`,
 * `VERBATIM_ALLOW_PRIVATE_TARGETS`. One for a deployment; a test gives each double its own.
 */
export interface Egress {
  proxyUrls?: readonly string[];
  ca?: readonly string[];
  allowPrivateTargets: boolean;
}

/** The deployment's egress, which every adapter shares. */
export function egressFrom(config: Config): Egress {
  // VERBATIM_CA_FILE: every upstream TLS connection trusts its authorities as well.
  return {
    ...(config.platforms.ca ? { ca: config.platforms.ca } : {}),
    ...(config.youtube.proxyUrls ? { proxyUrls: config.youtube.proxyUrls } : {}),
    allowPrivateTargets: config.allowPrivateTargets,
  };
}

/** What the web adapters take besides their egress. */
export interface WebAdapterOptions {
  logger: Logger;
  spotify: SpotifyCredentials | null;
  /** Download limits, and the other limits of reading a document or a media file; default the adapters'. */
  limits?: Omit<AudioSourcesConfig, "allowPrivateTargets" | "logger" | "ca" | "proxyUrls">;
}

/** Podcasts, feeds, media files and publisher transcripts with Apple Podcasts and Spotify links, and feeds as lists. */
export function buildWebAdapters(
  egress: Egress,
  options: WebAdapterOptions,
): Pick<Adapters, "audioSources" | "feedListings"> {
  const { logger, spotify } = options;
  return {
    audioSources: withPodcastLinks(createAudioSources({ ...egress, logger, ...options.limits }), {
      ...egress,
      spotify,
    }),
    feedListings: createFeedListings({ ...egress, spotify }),
  };
}

/** Live streams: the platforms' broadcasts (none without yt-dlp's), else any address read directly through one public fetch. */
export function buildLiveAdapters(
  egress: Egress,
  platforms: LiveSource | null,
): Pick<Adapters, "liveSources" | "liveFetch"> {
  const liveFetch = createPublicFetch(egress);
  return { liveSources: createLiveSources(platforms, liveFetch), liveFetch };
}

/** Builds the adapters the configuration names; `engine` is the speech engine, created before anything opens. */
export async function buildAdapters(
  config: Config,
  options: { logger: Logger; metrics: ServiceMetrics; engine: SpeechEngine },
): Promise<Adapters> {
  const { logger } = options;
  const egress = egressFrom(config);
  const { audioSources, feedListings } = buildWebAdapters(egress, {
    logger,
    spotify: config.spotify,
    limits: config.downloads,
  });
  const youtube = createYoutubeAdapter({ ...config.youtube, ...(egress.ca ? { ca: egress.ca } : {}) });
  const platformSources = await startPlatformSources({
    ...config.platforms,
    ...(egress.proxyUrls ? { proxyUrls: egress.proxyUrls } : {}),
    allowPrivateTargets: config.allowPrivateTargets,
    downloads: withDownloadDefaults(config.downloads),
    logger,
  });
  if (config.platforms.ytdlp) {
    logger.info(
      { python: config.platforms.ytdlp.python, origin: config.platforms.ytdlp.origin },
      "yt-dlp reads the video platforms",
    );
  } else {
    logger.warn(
      `yt-dlp is not installed: links to TikTok, Instagram, X and the other video platforms answer unsupported_platform. ${ytdlpAbsentAdvice}`,
    );
  }
  const { liveSources, liveFetch } = buildLiveAdapters(egress, platformSources.live);
  return {
    audioSources,
    feedListings,
    youtube,
    platformSources,
    engine: meteredSpeechEngine(options.engine, options.metrics),
    liveSources,
    liveFetch,
    async close() {
      await liveFetch.close();
      await audioSources.close();
      await feedListings.close();
      await platformSources.close();
    },
  };
}
