import type { SpeechEngine } from "../adapters/asr/index.ts";
import { meteredSpeechEngine } from "../adapters/asr/metered-engine.ts";
import { type ClosableAudioSources, createAudioSources } from "../adapters/audio-sources/index.ts";
import { withDownloadDefaults } from "../adapters/net/media-download.ts";
import { createPublicFetch, type PublicFetch } from "../adapters/net/public-fetch.ts";
import { createYoutubeAdapter, type YoutubeAdapter } from "../adapters/youtube/index.ts";
import type { Config } from "../config.ts";
import type { Logger } from "../logger.ts";
import type { ServiceMetrics } from "../metrics.ts";
import { type ClosableFeedListings, createFeedListings } from "../sources/feeds/index.ts";
import { type PlatformSources, startPlatformSources, ytdlpAbsentAdvice } from "../sources/index.ts";
import { createLiveSources, type LiveSources } from "../sources/live/index.ts";
import { withPodcastLinks } from "../sources/podcast-directory/index.ts";

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

/** Builds the adapters the configuration names; `engine` is the speech engine, created before anything opens. */
export async function buildAdapters(
  config: Config,
  options: { logger: Logger; metrics: ServiceMetrics; engine: SpeechEngine },
): Promise<Adapters> {
  const { logger } = options;
  // VERBATIM_CA_FILE: every upstream TLS connection trusts its authorities as well.
  const ca = config.platforms.ca ? { ca: config.platforms.ca } : {};
  const proxies = config.youtube.proxyUrls ? { proxyUrls: config.youtube.proxyUrls } : {};
  const egress = { ...ca, ...proxies, allowPrivateTargets: config.allowPrivateTargets };
  const audioSources = withPodcastLinks(createAudioSources({ ...egress, logger, ...config.downloads }), {
    ...egress,
    spotify: config.spotify,
  });
  const feedListings = createFeedListings({ ...egress, spotify: config.spotify });
  const youtube = createYoutubeAdapter({ ...config.youtube, ...ca });
  const platformSources = await startPlatformSources({
    ...config.platforms,
    ...proxies,
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
  const liveFetch = createPublicFetch(egress);
  return {
    audioSources,
    feedListings,
    youtube,
    platformSources,
    engine: meteredSpeechEngine(options.engine, options.metrics),
    liveSources: createLiveSources(platformSources.live, liveFetch),
    liveFetch,
    async close() {
      await liveFetch.close();
      await audioSources.close();
      await feedListings.close();
      await platformSources.close();
    },
  };
}
