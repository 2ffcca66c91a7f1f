import type { Schema } from "@verbatim/contract";
import type { ItemMetadata } from "../../sources/item-metadata.ts";
import type { SourceRegistry } from "../../sources/registry.ts";
import { SourceError } from "../../sources/source-error.ts";
import type { ChargeSettlement, Credits } from "../accounts/index.ts";
import { pricing } from "../accounts/index.ts";
import { toApiError } from "../failures/index.ts";
import { podcastField } from "../kept/index.ts";

type VideoMetadata = Schema<"VideoMetadata">;

export interface VideoMetadataReaderOptions {
  credits: Credits;
  /** The sources an input may name, asked in order, as `POST /transcripts/video` asks them. */
  sources: SourceRegistry;
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

/**
 * `POST /videos/metadata`: an item's metadata from whichever source the registry says reads it,
 * for 1 credit charged once it is read; nothing when it fails. An input is matched as
 * `POST /transcripts/video` matches it, with the same input errors, which come before a 402.
 */
export class VideoMetadataReader {
  constructor(private readonly options: VideoMetadataReaderOptions) {}

  async read(query: MetadataQuery): Promise<ChargedMetadata> {
    const { credits, sources } = this.options;
    const match = sources.match(query.video);
    if (match instanceof SourceError) throw toApiError(match);
    credits.requireAtLeast(query.balance, pricing.minimum());
    const item = await match.source.metadata(match.ref, { accountId: query.accountId }).catch((error: unknown) => {
      throw toApiError(error);
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
}

/** The wire's `video_metadata` of an item's metadata. */
export function wireMetadata(item: ItemMetadata): VideoMetadata {
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
    ...podcastField(item.podcast),
  };
}
