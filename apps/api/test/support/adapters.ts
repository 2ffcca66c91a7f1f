import type { PlatformDouble } from "@verbatim/testkit/platform-double";
import type { SpeechEngine } from "../../src/adapters/asr/index.ts";
import type { ClosableAudioSources } from "../../src/adapters/audio-sources/index.ts";
import { withDownloadDefaults } from "../../src/adapters/net/media-download.ts";
import {
  createYoutubeAdapter,
  type YoutubeAdapter,
  type YoutubeAdapterConfig,
} from "../../src/adapters/youtube/index.ts";
import {
  buildLiveAdapters,
  buildWebAdapters,
  type Egress,
  type WebAdapterOptions,
} from "../../src/assembly/adapters.ts";
import type { ServiceAdapters } from "../../src/assembly/services.ts";
import type { Logger } from "../../src/logger.ts";
import { type PlatformSources, startPlatformSources } from "../../src/sources/index.ts";
import type { LiveSource } from "../../src/sources/live/index.ts";
import type { SpotifyCredentials } from "../../src/sources/spotify/spotify-web-api.ts";
import type { YtdlpEngine } from "../../src/sources/ytdlp/find-ytdlp.ts";
import { defaultYtdlpExtractors } from "../../src/sources/ytdlp/ytdlp-extractors.ts";
import { podcastDoubleEgress } from "../podcast-links/podcast-double.ts";
import { readyProjectYtdlp } from "../ytdlp/harness.ts";

/** The doubles a test chose, each standing in for an upstream of `Adapters`; an upstream not chosen is absent. */
export interface ChosenDoubles {
  logger: Logger;
  /**
   * Podcasts, feeds, pages and media files, read from loopback hosts (the fake podcast host), or
   * through `podcastDouble` under the public-address rule, as `VERBATIM_PROXY_URLS` and
   * `VERBATIM_CA_FILE` name it.
   */
  web?: {
    podcastDouble?: PlatformDouble;
    /** Spotify's Web API credentials, which the podcast double's Spotify folder answers; default none. */
    spotify?: SpotifyCredentials;
    limits?: WebAdapterOptions["limits"];
  };
  /** YouTube as `VERBATIM_YOUTUBE_ORIGIN` and the upstream settings name it: a `FakeYoutube`'s origin, say. */
  youtube?: YoutubeAdapterConfig;
  /**
   * The video platforms: yt-dlp reading them through the egress guard and this double (as
   * `VERBATIM_PROXY_URLS` and `VERBATIM_CA_FILE` name it), or sources the test built itself.
   */
  platforms?: PlatformDoubleChoice | TestPlatformSources;
  engine?: SpeechEngine;
  /** Live streams, read through a public fetch of their own; `platforms` stand for the broadcasts yt-dlp resolves. */
  live?: { allowPrivateTargets: boolean; platforms?: LiveSource };
}

export interface PlatformDoubleChoice {
  double: PlatformDouble;
  /** The yt-dlp extractors allowed; default yt-dlp's default list. */
  extractors?: readonly string[];
  /** The yt-dlp run; default the project's; null for none, as on a server without it. */
  ytdlp?: YtdlpEngine | null;
}

/** Platform sources a test built itself, closed with the adapters. */
export type TestPlatformSources = Pick<PlatformSources, "registry" | "check" | "close">;

/** The adapters of a test's doubles, and how to close what they opened. */
export interface TestAdapters extends ServiceAdapters {
  audioSources?: ClosableAudioSources;
  youtube?: YoutubeAdapter;
  close(): Promise<void>;
}

/**
 * Builds the adapters of the chosen doubles with the deployment's own builders (`buildWebAdapters`,
 * `buildLiveAdapters`) and constructors, each double reached through an egress of its own.
 */
export async function buildTestAdapters(
  doubles: ChosenDoubles & { web: object; engine: SpeechEngine },
): Promise<TestAdapters & { audioSources: ClosableAudioSources; engine: SpeechEngine }>;
export async function buildTestAdapters(doubles: ChosenDoubles): Promise<TestAdapters>;
export async function buildTestAdapters(doubles: ChosenDoubles): Promise<TestAdapters> {
  const { logger, web, live } = doubles;
  // The fake podcast host listens on loopback, a private address admitted here.
  const webEgress: Egress = web?.podcastDouble ? podcastDoubleEgress(web.podcastDouble) : { allowPrivateTargets: true };
  const webAdapters = web
    ? buildWebAdapters(webEgress, {
        logger,
        spotify: web.spotify ?? null,
        ...(web.limits ? { limits: web.limits } : {}),
      })
    : undefined;
  const platformSources = await platformSourcesOf(doubles.platforms, logger);
  const liveAdapters = live
    ? buildLiveAdapters({ allowPrivateTargets: live.allowPrivateTargets }, live.platforms ?? null)
    : undefined;
  return {
    ...webAdapters,
    ...(doubles.youtube ? { youtube: createYoutubeAdapter(doubles.youtube) } : {}),
    ...(platformSources ? { platformSources } : {}),
    ...(doubles.engine ? { engine: doubles.engine } : {}),
    ...liveAdapters,
    async close() {
      await liveAdapters?.liveFetch.close();
      await webAdapters?.audioSources.close();
      await webAdapters?.feedListings.close();
      await platformSources?.close();
    },
  };
}

async function platformSourcesOf(
  choice: ChosenDoubles["platforms"],
  logger: Logger,
): Promise<(TestPlatformSources & Partial<Pick<PlatformSources, "profiles">>) | undefined> {
  if (!choice || !("double" in choice)) return choice;
  return startPlatformSources({
    ytdlp: choice.ytdlp === undefined ? readyProjectYtdlp() : choice.ytdlp,
    extractors: choice.extractors ?? defaultYtdlpExtractors,
    proxyUrls: [choice.double.proxyUrl],
    caFile: choice.double.caFile,
    allowPrivateTargets: false,
    downloads: withDownloadDefaults({}),
    logger,
  });
}
