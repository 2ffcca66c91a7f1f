import { countOf, type ItemMetadata, type ItemThumbnail } from "../item-metadata.ts";
import type { PlatformSource, SourceDetails } from "../platform-source.ts";
import { firstVideoOf, type InfoDict } from "./info-dict.ts";
import { httpAddress, isRecord, trimmedText } from "./info-dict-values.ts";

/** The longest description kept: a post's caption or a video's description, not a document. */
const longestDescription = 20_000;

/** The most tags and thumbnails kept of an item. */
const mostListed = 100;

/**
 * An item's metadata from yt-dlp's info dict and the details read from it (`detailsFromInfoDict`,
 * which has refused items that are live or scheduled). The channel is named as the details name
 * it; its id and address are yt-dlp's `channel_id`/`uploader_id` and `uploader_url`/`channel_url`.
 * Every value is the extractor's reading of the platform's page, so each is checked for its type.
 */
export function metadataFromInfoDict(source: PlatformSource, details: SourceDetails, info: InfoDict): ItemMetadata {
  const item = firstVideoOf(info);
  const creatorsFirst = [
    ...details.captions.filter((track) => track.kind === "manual"),
    ...details.captions.filter((track) => track.kind === "auto"),
  ];
  return {
    platform: details.ref.platform,
    itemId: details.itemId,
    url: details.url,
    title: details.title,
    description: text(item.description, longestDescription),
    channel: {
      id: text(item.channel_id) ?? text(item.uploader_id),
      name: details.channel,
      url: httpAddress(item.uploader_url) ?? httpAddress(item.channel_url),
    },
    durationSeconds: details.durationSeconds,
    publishedAt: details.publishedAt ?? null,
    language: details.language,
    tags: Array.isArray(item.tags) ? item.tags.flatMap((tag) => text(tag) ?? []).slice(0, mostListed) : [],
    chapters: details.chapters,
    thumbnails: thumbnailsOf(item.thumbnails),
    stats: { views: countOf(item.view_count), likes: countOf(item.like_count), comments: countOf(item.comment_count) },
    liveStatus: liveStatusOf(item.live_status),
    captions: creatorsFirst.map((track) => ({
      language: track.language,
      name: null,
      kind: track.kind,
      translationTargets: source.translations(details, track).map((target) => ({
        language: target.language,
        name: null,
      })),
    })),
    podcast: null,
  };
}

/** yt-dlp's `thumbnails`, smallest first (those of unknown size before the others). */
function thumbnailsOf(value: unknown): ItemThumbnail[] {
  if (!Array.isArray(value)) return [];
  const thumbnails = value.flatMap((thumbnail): ItemThumbnail[] => {
    const url = isRecord(thumbnail) ? httpAddress(thumbnail.url) : null;
    if (!url || !isRecord(thumbnail)) return [];
    return [{ url, width: countOf(thumbnail.width), height: countOf(thumbnail.height) }];
  });
  return thumbnails.sort((a, b) => (a.width ?? 0) - (b.width ?? 0)).slice(0, mostListed);
}

/** `was_live` and `post_live` (a recording being processed) are past streams; live and scheduled items never get here. */
function liveStatusOf(value: unknown): ItemMetadata["liveStatus"] {
  if (value === "was_live" || value === "post_live") return "was_live";
  return value === "not_live" ? "not_live" : null;
}

function text(value: unknown, longest?: number): string | null {
  return trimmedText(value, longest) ?? null;
}
