import { Innertube } from "youtubei.js";
import { type CaptionSource, YoutubeiCaptionSource } from "./caption-source.ts";
import { createUpstreamFetch } from "./upstream-fetch.ts";

export type { CaptionSource, VideoCaptions } from "./caption-source.ts";
export { UpstreamError, VideoUnavailableError } from "./upstream-errors.ts";

/** How the YouTube adapter reaches YouTube. */
export interface YoutubeAdapterConfig {
  /** `VERBATIM_YOUTUBE_ORIGIN`; default `https://www.youtube.com`. */
  origin?: string;
  /** `VERBATIM_PROXY_URLS`, split: proxies used in turn. */
  proxyUrls?: readonly string[];
  /** Milliseconds one upstream attempt may take; default 10 s. */
  attemptTimeoutMs?: number;
  /** Milliseconds one upstream call may take with its retries; default 25 s. */
  budgetMs?: number;
  /** Attempts per upstream call; default 3. */
  maxAttempts?: number;
  /** Milliseconds of the first retry backoff; default 200. */
  backoffBaseMs?: number;
}

/** The YouTube ports the app uses. */
export interface YoutubeAdapter {
  captions: CaptionSource;
}

/** Builds the YouTube adapter; nothing touches the network until the first request. */
export function createYoutubeAdapter(config: YoutubeAdapterConfig = {}): YoutubeAdapter {
  const upstreamFetch = createUpstreamFetch({
    origin: config.origin ?? "https://www.youtube.com",
    proxyUrls: config.proxyUrls ?? [],
    attemptTimeoutMs: config.attemptTimeoutMs ?? 10_000,
    budgetMs: config.budgetMs ?? 25_000,
    maxAttempts: config.maxAttempts ?? 3,
    backoffBaseMs: config.backoffBaseMs ?? 200,
  });
  let session: Promise<Innertube> | undefined;
  const innertube = () => {
    // The session is built locally, without the /sw.js_data, config and player-script fetches.
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
  return { captions: new YoutubeiCaptionSource(innertube, upstreamFetch) };
}
