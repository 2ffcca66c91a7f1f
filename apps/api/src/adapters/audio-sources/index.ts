import type { LookupFunction } from "node:net";
import type { Logger } from "../../logger.ts";
import type { AddressRule } from "../net/address-rule.ts";
import { type DownloadLimits, withDownloadDefaults } from "../net/media-download.ts";
import { createPublicFetch } from "../net/public-fetch.ts";
import { IsolatedParser } from "../parsing/isolated-parser.ts";
import type { AudioSources } from "./audio-source.ts";
import type { FeedReader } from "./feeds.ts";
import { WebAudioSources } from "./web-audio-sources.ts";

export type {
  AudioSources,
  DownloadedMedia,
  EpisodeChapter,
  EpisodeNotes,
  PodcastDetails,
  PodcastResolution,
  PublisherTranscript,
  PublisherTranscriptLink,
  ResolvedAudioSource,
  TimedSegment,
} from "./audio-source.ts";
export type { FeedEpisode, FeedReader, ParsedFeed } from "./feeds.ts";
export { feedEpisodeSource, mediaPlatformOf } from "./web-audio-sources.ts";

/** How podcasts, feeds and media files are reached. */
export interface AudioSourcesConfig extends DownloadLimits {
  /** `VERBATIM_ALLOW_PRIVATE_TARGETS=1`: private, loopback and link-local addresses may be fetched. */
  allowPrivateTargets: boolean;
  logger: Logger;
  /** Milliseconds to connect, to get an answer's headers, and for each pause in its body; default 15 s. */
  requestTimeoutMs?: number;
  /** Milliseconds one feed, page or transcript may take in all; default 60 s. */
  documentTimeoutMs?: number;
  /** Bytes of one feed or page at most; default 20 MiB. */
  feedMaxBytes?: number;
  /** Bytes of one publisher transcript at most; default 10 MiB. */
  transcriptMaxBytes?: number;
  /** Sent as `User-Agent`; default `Verbatim`. */
  userAgent?: string;
  /** Resolves host names (default `dns.lookup`): for tests. */
  lookup?: LookupFunction;
  /** How long parsing one fetched feed, page or transcript may take (default 10 s); beyond it, `invalid_input`. */
  parseDeadlineMs?: number;
  /** Replaces the public-address rule: for tests only, to let a loopback port stand in for a public host. */
  addressRule?: AddressRule;
  /** `VERBATIM_CA_FILE` read by `caCertificatesFrom`: the certificate authorities TLS connections trust. */
  ca?: readonly string[];
  /** `VERBATIM_PROXY_URLS`: feeds, pages and media are fetched through these proxies, in turn. */
  proxyUrls?: readonly string[];
}

/** The audio sources, their feed reader, and a way to close their pooled connections on shutdown. */
export type ClosableAudioSources = AudioSources & FeedReader & { close(): Promise<void> };

/** Builds the audio sources on a public-address fetch of their own; nothing touches the network until a call. */
export function createAudioSources(config: AudioSourcesConfig): ClosableAudioSources {
  const fetch = createPublicFetch({
    allowPrivateTargets: config.allowPrivateTargets,
    timeoutMs: config.requestTimeoutMs ?? 15_000,
    ...(config.userAgent === undefined ? {} : { userAgent: config.userAgent }),
    ...(config.lookup === undefined ? {} : { lookup: config.lookup }),
    ...(config.addressRule === undefined ? {} : { addressRule: config.addressRule }),
    ...(config.ca === undefined ? {} : { ca: config.ca }),
    ...(config.proxyUrls === undefined ? {} : { proxyUrls: config.proxyUrls }),
  });
  const parser = new IsolatedParser(config.parseDeadlineMs === undefined ? {} : { deadlineMs: config.parseDeadlineMs });
  const sources = new WebAudioSources(
    fetch,
    {
      feedMaxBytes: config.feedMaxBytes ?? 20 * 1024 * 1024,
      transcriptMaxBytes: config.transcriptMaxBytes ?? 10 * 1024 * 1024,
      documentTimeoutMs: config.documentTimeoutMs ?? 60_000,
      ...withDownloadDefaults(config),
      maxFeedCandidates: 3,
    },
    config.logger,
    parser,
  );
  return Object.assign(sources, {
    close: async () => {
      await Promise.all([fetch.close(), parser.close()]);
    },
  });
}
