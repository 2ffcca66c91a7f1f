import type { Schema } from "@verbatim/contract";
import type { AudioSources } from "../adapters/audio-sources/audio-source.ts";
import type { VideoPageSource } from "../adapters/youtube/index.ts";
import { parseVideoReference } from "../adapters/youtube/video-reference.ts";
import { ApiError } from "../errors.ts";
import { episodeMetadata } from "../sources/feeds/episode-metadata.ts";
import type { ItemMetadata } from "../sources/item-metadata.ts";
import type { SourceRegistry } from "../sources/registry.ts";
import { apiErrorOf } from "../sources/source-error.ts";
import { youtubeMetadata } from "../sources/youtube/youtube-metadata.ts";
import type { ChargeSettlement, Credits } from "./credits.ts";
import { pricing } from "./pricing.ts";

type VideoMetadata = Schema<"VideoMetadata">;

export interface VideoMetadataReaderOptions {
  credits: Credits;
  /** YouTube's video pages; without them, YouTube inputs are refused. */
  youtube?: VideoPageSource;
  /** Podcasts, feeds and media files; without them, other addresses are refused. */
  sources?: AudioSources;
  /** The other video platforms; without them, their links are read as web pages, as transcripts do. */
  platforms?: SourceRegistry;
}

/** One metadata request: whose, what it may spend, and what its charge commits with. */
export interface MetadataQuery {
  video: string;
  accountId: string;
  /** The account's balance when the request arrived (`null`: unlimited). */
  balance: number | null;
  requestId: string;
  /** With an Idempotency-Key, the transaction the charge commits in with the answer. */
  settlement?: ChargeSettlement;
}

/** An item's metadata and what reading it charged. */
export interface ChargedMetadata {
  metadata: VideoMetadata;
  creditsSpent: number;
  balance: number | null;
}

/** How an input is read: which source's metadata module answers it. */
type Reading = (query: MetadataQuery) => Promise<ItemMetadata>;

/**
 * `POST /videos/metadata`: an item's metadata from whichever source reads it, for 1 credit
 * charged once it is read; nothing when it fails. An input is classified as
 * `POST /transcripts/video` classifies it, with the same input errors, which come before a 402.
 */
export class VideoMetadataReader {
  constructor(private readonly options: VideoMetadataReaderOptions) {}

  async read(query: MetadataQuery): Promise<ChargedMetadata> {
    const reading = this.readingOf(query.video);
    const { credits } = this.options;
    credits.requireAtLeast(query.balance, pricing.minimum());
    const item = await reading(query).catch((error: unknown) => {
      throw apiErrorOf(error);
    });
    const creditsSpent = pricing.metadata();
    const balance = await credits.charge({
      accountId: query.accountId,
      credits: creditsSpent,
      operation: "POST /videos/metadata",
      requestId: query.requestId,
      ...(query.settlement ? { settlement: query.settlement } : {}),
    });
    return { metadata: wireMetadata(item), creditsSpent, balance };
  }

  /** The one place an input meets its source; refuses, offline, what no source reads. */
  private readingOf(video: string): Reading {
    const { youtube, sources, platforms } = this.options;
    const reference = parseVideoReference(video);
    const platformItem = reference.kind === "youtube" ? null : (platforms?.match(video) ?? null);
    if (platformItem) {
      const { source, ref } = platformItem;
      return (query) => {
        if (!source.metadata) {
          throw new ApiError("unsupported_platform", `This server reads no metadata of ${ref.platform} items.`);
        }
        return source.metadata(ref, { accountId: query.accountId });
      };
    }
    if (reference.kind === "youtube-without-video") {
      throw new ApiError("invalid_input", `"${video}" is a YouTube address but names no video.`);
    }
    if (reference.kind === "malformed") {
      throw new ApiError("invalid_input", `"${video}" is neither a YouTube video id nor a URL.`);
    }
    if (reference.kind === "other-url") {
      if (!sources) {
        throw new ApiError(
          "unsupported_platform",
          `${reference.url.hostname} is not YouTube, and this server reads no other sources.`,
        );
      }
      return () => episodeMetadata(sources, video);
    }
    if (!youtube) throw new ApiError("unsupported_platform", "YouTube is not configured on this server.");
    return () => youtubeMetadata(youtube, reference.videoId);
  }
}

/** The wire's `video_metadata` of an item's metadata. */
export function wireMetadata(item: ItemMetadata): VideoMetadata {
  const { podcast } = item;
  return {
    kind: "video_metadata",
    platform: item.platform,
    video_id: item.itemId,
    url: item.url,
    title: item.title,
    description: item.description,
    channel: item.channel,
    duration: item.durationSeconds,
    published_at: item.publishedAt?.toISOString() ?? null,
    language: item.language,
    tags: item.tags,
    chapters: item.chapters,
    thumbnails: item.thumbnails,
    stats: item.stats,
    live_status: item.liveStatus,
    captions: item.captions.map((track) => ({
      language: track.language,
      name: track.name,
      kind: track.kind,
      translatable: track.translationTargets.length > 0,
      translation_targets: track.translationTargets,
    })),
    ...(podcast
      ? {
          podcast: {
            show: podcast.show,
            episode: podcast.episode,
            published_at: podcast.publishedAt?.toISOString() ?? null,
            feed_url: podcast.feedUrl,
            audio_url: podcast.audioUrl,
            resolved_via: podcast.resolvedVia,
          },
        }
      : {}),
  };
}
