import { Innertube } from "youtubei.js";
import { type DownloadLimits, withDownloadDefaults } from "../net/media-download.ts";
import { type StreamRoute, type YoutubeAudioSource, YoutubeiAudioSource } from "./audio-streams.ts";
import { type CaptionSource, YoutubeiCaptionSource } from "./caption-source.ts";
import { createUpstreamFetch } from "./upstream-fetch.ts";
import { YoutubeiVideoListSource } from "./video-list-source.ts";
import type { VideoListSource } from "./video-lists.ts";
import { type VideoPageSource, YoutubeiVideoPages } from "./video-metadata.ts";

export type { DownloadedStream, RoutedStream, YoutubeAudio, YoutubeAudioSource } from "./audio-streams.ts";
export type { CaptionListing, CaptionSource, VideoCaptions } from "./caption-source.ts";
export { translationTargetsOf } from "./caption-source.ts";
export type { CaptionTrack, TranslationLanguage } from "./player-response.ts";
export { UpstreamError, VideoUnavailableError } from "./upstream-errors.ts";
export type { ListRow, ListTarget, UpstreamListPage, VideoListSource } from "./video-lists.ts";
export type { VideoPage, VideoPageSource } from "./video-metadata.ts";

const defaultOrigin = "https://www.youtube.com";

/** How the YouTube adapter reaches YouTube; audio streams obey the media download limits. */
export interface YoutubeAdapterConfig extends DownloadLimits {
  /** `VERBATIM_YOUTUBE_ORIGIN`; default `https://www.youtube.com`. */
  origin?: string;
  /**
   * `VERBATIM_YOUTUBE_MEDIA_ORIGIN`: where audio stream requests (`*.googlevideo.com`) go. Unset, they
   * follow a configured `origin`, so all YouTube traffic reaches it; with neither, the host YouTube names.
   */
  mediaOrigin?: string;
  /** `VERBATIM_PROXY_URLS`, split: proxies used in turn. */
  proxyUrls?: readonly string[];
  /** `VERBATIM_CA_FILE` read by `caCertificatesFrom`: the certificate authorities TLS connections trust. */
  ca?: readonly string[];
  /** Milliseconds one upstream attempt may take; default 10 s. */
  attemptTimeoutMs?: number;
  /** Milliseconds one upstream call may take with its retries; default 25 s. */
  budgetMs?: number;
  /** Attempts per upstream call; default 3. */
  maxAttempts?: number;
  /** Milliseconds of the first retry backoff; default 200. */
  backoffBaseMs?: number;
  /** The clock list rows' relative upload times ("2 days ago") count back from; tests may fix it. */
  now?: () => Date;
}

/** The YouTube ports the app uses. */
export interface YoutubeAdapter {
  captions: CaptionSource;
  lists: VideoListSource;
  /** Audio streams, for speech recognition of videos. */
  audio: YoutubeAudioSource;
  /** What a video's page says about it, for its metadata. */
  pages: VideoPageSource;
}

/** Builds the YouTube adapter; nothing touches the network until the first request. */
export function createYoutubeAdapter(config: YoutubeAdapterConfig = {}): YoutubeAdapter {
  const redirected = config.origin !== undefined && new URL(config.origin).origin !== defaultOrigin;
  const mediaOrigin = config.mediaOrigin ?? (redirected ? config.origin : undefined);
  const proxyUrls = config.proxyUrls ?? [];
  const fetchThrough = (proxies: readonly string[]) =>
    createUpstreamFetch({
      origin: config.origin ?? defaultOrigin,
      proxyUrls: proxies,
      attemptTimeoutMs: config.attemptTimeoutMs ?? 10_000,
      budgetMs: config.budgetMs ?? 25_000,
      maxAttempts: config.maxAttempts ?? 3,
      backoffBaseMs: config.backoffBaseMs ?? 200,
      ...(config.ca ? { ca: config.ca } : {}),
    });
  const upstreamFetch = fetchThrough(proxyUrls);
  const innertube = lazySession(upstreamFetch);
  // A stream address works only from the IP that asked for it, so each proxy gets a session of its own.
  const audioRoutes: StreamRoute[] =
    proxyUrls.length === 0
      ? [{ innertube }]
      : proxyUrls.map((url) => ({ innertube: lazySession(fetchThrough([url])), proxyUrl: url }));
  return {
    captions: new YoutubeiCaptionSource(innertube, upstreamFetch),
    lists: new YoutubeiVideoListSource(innertube, config.now ?? (() => new Date())),
    pages: new YoutubeiVideoPages(innertube),
    audio: new YoutubeiAudioSource(audioRoutes, {
      ...(mediaOrigin === undefined ? {} : { mediaOrigin }),
      ...withDownloadDefaults(config),
      chunkTimeoutMs: config.attemptTimeoutMs ?? 10_000,
      ...(config.ca ? { ca: config.ca } : {}),
    }),
  };
}

/** An InnerTube session over `upstreamFetch`, built on first use, locally: no /sw.js_data, config or player-script fetch. */
function lazySession(upstreamFetch: typeof fetch): () => Promise<Innertube> {
  let session: Promise<Innertube> | undefined;
  return () => {
    session ??= Innertube.create({
      fetch: upstreamFetch,
      generate_session_locally: true,
      retrieve_player: false,
      retrieve_innertube_config: false,
      enable_session_cache: false,
      lang: "en",
      location: "US",
    }).catch((error: unknown) => {
      session = undefined;
      throw error;
    });
    return session;
  };
}
