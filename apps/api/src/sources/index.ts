import type { AudioSources } from "../adapters/audio-sources/audio-source.ts";
import type { MediaDownloadLimits } from "../adapters/net/media-download.ts";
import { IsolatedParser } from "../adapters/parsing/isolated-parser.ts";
import type { Logger } from "../logger.ts";
import { startEgressGuard } from "./egress/egress-guard.ts";
import type { ListingSource } from "./listing-source.ts";
import type { LiveSource } from "./live/live-source.ts";
import { liveExtractors, YtdlpLiveStreams } from "./live/ytdlp-live.ts";
import { SourceRegistry } from "./registry.ts";
import { WebSource } from "./web/web-source.ts";
import { YoutubeSource, type YoutubeSourceOptions } from "./youtube/youtube-source.ts";
import type { YtdlpEngine } from "./ytdlp/find-ytdlp.ts";
import { YtdlpProfiles } from "./ytdlp/ytdlp-profiles.ts";
import { createYtdlpSidecar, YtdlpStartError } from "./ytdlp/ytdlp-sidecar.ts";
import { YtdlpSource } from "./ytdlp/ytdlp-source.ts";

export { SourceRegistry } from "./registry.ts";

/** What a server reads, by source: each part left out is a source it does without. */
export interface SourceParts {
  /** YouTube's captions, and its audio streams where speech recognition runs; without, YouTube's addresses are refused. */
  youtube?: YoutubeSourceOptions;
  /** The video platforms read through yt-dlp (`startPlatformSources`). */
  platforms?: SourceRegistry;
  /** Podcast pages, feeds, publisher transcripts, media files, and Apple Podcasts and Spotify episode links. */
  web?: AudioSources;
}

/**
 * The source registry of a server, its members in the order it asks them: YouTube (which knows
 * its addresses even where it is not configured), then the platforms yt-dlp reads, then the web,
 * which claims any other address. A new source is a line
 * here; a new platform of a family (yt-dlp's) is a row of that family's table.
 */
export function createSourceRegistry(parts: SourceParts): SourceRegistry {
  return new SourceRegistry([
    new YoutubeSource(parts.youtube ?? {}),
    ...(parts.platforms?.members ?? []),
    ...(parts.web ? [new WebSource(parts.web)] : []),
  ]);
}

/** How the video platforms are reached. */
export interface PlatformSourcesConfig {
  /** yt-dlp as `findYtdlp` found it (`VERBATIM_YTDLP`, else the project's copy); null when there is none. */
  ytdlp: YtdlpEngine | null;
  /** `VERBATIM_YTDLP_EXTRACTORS`: the yt-dlp extractors allowed. */
  extractors: readonly string[];
  /** `VERBATIM_YTDLP_CONCURRENCY`: yt-dlp calls run at once; the sidecar's default when left out. */
  ytdlpConcurrency?: number;
  /** `VERBATIM_YTDLP_ACCOUNT_CONCURRENCY`: yt-dlp calls of one account run at once; the sidecar's default when left out. */
  ytdlpAccountConcurrency?: number;
  /** `VERBATIM_PROXY_URLS`: every connection to a platform goes out through these, in turn. */
  proxyUrls?: readonly string[];
  /** `VERBATIM_CA_FILE`: a PEM file of extra certificate authorities yt-dlp trusts. */
  caFile?: string;
  /** The certificates of `caFile`, for TLS to an https proxy. */
  ca?: readonly string[];
  /** `VERBATIM_ALLOW_PRIVATE_TARGETS=1`: the guard lets calls reach private addresses (tests). */
  allowPrivateTargets: boolean;
  downloads: MediaDownloadLimits;
  logger: Logger;
}

/** The video platforms of a process, the check `/health/deep` runs on them, and their shutdown. */
export interface PlatformSources {
  registry: SourceRegistry;
  /** The profiles yt-dlp lists (TikTok, Instagram), a member of the listing registry. */
  profiles: ListingSource;
  /** YouTube live videos and Twitch channels, resolved by yt-dlp for live sessions. */
  live: LiveSource;
  /** Throws, saying why and what to do, when no yt-dlp answers. */
  check(): Promise<void>;
  close(): Promise<void>;
}

/** What a client is told when a platform needs yt-dlp and this server has none. */
export const ytdlpAbsentAdvice =
  "Its operator enables it by installing Python 3.9 or later and running `pnpm install` again (which installs yt-dlp into apps/api/.ytdlp), or by pointing VERBATIM_YTDLP at a yt-dlp installation.";

/** How long the deep health check waits for yt-dlp to say its version. */
const healthDeadlineMs = 15_000;

/**
 * Starts the egress guard and, when yt-dlp is installed, its sidecar (lazily: the process starts
 * on the first call). Without yt-dlp the sources still match their links, so those are refused
 * with `unsupported_platform` and the way to enable them.
 */
export async function startPlatformSources(config: PlatformSourcesConfig): Promise<PlatformSources> {
  const guard = await startEgressGuard({
    allowPrivateTargets: config.allowPrivateTargets,
    logger: config.logger,
    ...(config.proxyUrls?.length ? { upstreamProxyUrls: config.proxyUrls } : {}),
    ...(config.ca ? { ca: config.ca } : {}),
  });
  const sidecar = config.ytdlp
    ? createYtdlpSidecar({
        python: config.ytdlp.python,
        ...(config.ytdlp.pythonPath ? { pythonPath: config.ytdlp.pythonPath } : {}),
        // Live sessions resolve broadcasts with these; a Twitch channel sent to the video endpoint is then told live_stream.
        extractors: [...config.extractors, ...liveExtractors.filter((key) => !config.extractors.includes(key))],
        ...(config.caFile ? { caFile: config.caFile } : {}),
        ...(config.ytdlpConcurrency === undefined ? {} : { maxConcurrentCalls: config.ytdlpConcurrency }),
        ...(config.ytdlpAccountConcurrency === undefined ? {} : { maxCallsPerAccount: config.ytdlpAccountConcurrency }),
        logger: config.logger,
      })
    : null;
  const parser = new IsolatedParser();
  const ytdlp = new YtdlpSource({
    engine: sidecar,
    absentAdvice: ytdlpAbsentAdvice,
    egress: guard,
    parser,
    allowedExtractors: config.extractors,
    downloadMaxBytes: config.downloads.downloadMaxBytes,
    downloadTimeoutMs: config.downloads.downloadTimeoutMs,
  });
  const profiles = new YtdlpProfiles({
    engine: sidecar,
    absentAdvice: ytdlpAbsentAdvice,
    egress: guard,
    allowedExtractors: config.extractors,
  });
  return {
    registry: new SourceRegistry([ytdlp]),
    profiles,
    live: new YtdlpLiveStreams({ engine: sidecar, absentAdvice: ytdlpAbsentAdvice, egress: guard }),
    check: async () => {
      if (!sidecar)
        throw new Error(
          `yt-dlp is not installed, so links to TikTok, Instagram, X and the other video platforms answer unsupported_platform. ${ytdlpAbsentAdvice}`,
        );
      const { version } = await sidecar.version({ deadlineMs: healthDeadlineMs }).catch((error: unknown) => {
        if (!(error instanceof YtdlpStartError)) throw error;
        throw new Error(
          `yt-dlp does not start (${error.reason}), so links to TikTok, Instagram, X and the other video platforms answer unsupported_platform. ${ytdlpAbsentAdvice}`,
          { cause: error },
        );
      });
      if (!version) throw new Error("yt-dlp answered without a version.");
    },
    close: async () => {
      await Promise.all([sidecar?.close(), guard.close(), parser.close()]);
    },
  };
}
