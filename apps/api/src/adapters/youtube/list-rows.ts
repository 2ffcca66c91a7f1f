import type { Schema } from "@verbatim/contract";
import { type Helpers, type IParsedResponse, ReloadContinuationItemsCommand, YTNodes } from "youtubei.js";
import type { ListRow, UpstreamListPage } from "./video-lists.ts";

type YTNode = Helpers.YTNode;

/** What a list page is read for. */
export interface ListPageContext {
  /** The kind of row the list holds; items of other kinds (shelves, ads, chips) are not rows. */
  rowKind: "video" | "channel" | "playlist";
  /** The channel every video of the list belongs to (a channel's tabs do not repeat its name on each item). */
  channelName: string | null;
  /** The time YouTube's relative upload times ("2 days ago") count back from. */
  now: Date;
}

/**
 * One page of a parsed InnerTube answer (a first `browse`/`search` page or a continuation),
 * in YouTube's order: the rows of the requested kind, and the token of the list's own
 * continuation item. Only list containers are entered, so shelves and their items are skipped.
 */
export function readListPage(response: IParsedResponse, context: ListPageContext): UpstreamListPage {
  const items: YTNode[] = [];
  const roots: YTNode[] = [
    ...(response.contents ? [response.contents.item()] : []),
    ...(response.on_response_received_actions ?? []),
    ...(response.on_response_received_commands ?? []),
    ...(response.on_response_received_endpoints ?? []),
  ];
  for (const root of roots) collectListItems(root, items);
  const rows: ListRow[] = [];
  let continuation: string | null = null;
  for (const item of items) {
    if (item.is(YTNodes.ContinuationItem)) {
      continuation = continuationToken(item) ?? continuation;
      continue;
    }
    const row = toRow(item, context);
    if (row) rows.push(row);
  }
  return { rows, continuation };
}

/** Descends through the containers of list pages; anything else is an item. */
function collectListItems(node: YTNode | null | undefined, items: YTNode[]): void {
  if (!node) return;
  const enter = (children: readonly YTNode[] | null | undefined) => {
    for (const child of children ?? []) collectListItems(child, items);
  };
  if (node.is(YTNodes.TwoColumnBrowseResults)) {
    collectListItems(node.tabs.find((tab) => tab.selected)?.content, items);
  } else if (node.is(YTNodes.TwoColumnSearchResults)) {
    collectListItems(node.primary_contents, items);
  } else if (
    node.is(YTNodes.SectionList, YTNodes.ItemSection, YTNodes.RichGrid, YTNodes.AppendContinuationItemsAction)
  ) {
    enter(node.contents);
  } else if (node instanceof ReloadContinuationItemsCommand) {
    // The header slot of a re-sorted tab holds the chip bar, not list items.
    if (node.slot !== "RELOAD_CONTINUATION_SLOT_HEADER") enter(node.contents ?? []);
  } else if (node.is(YTNodes.PlaylistVideoList)) {
    enter(node.videos);
  } else if (node.is(YTNodes.RichItem)) {
    collectListItems(node.content, items);
  } else {
    items.push(node);
  }
}

function continuationToken(item: YTNodes.ContinuationItem): string | null {
  const token: unknown = item.endpoint?.payload?.token;
  return typeof token === "string" && token.length > 0 ? token : null;
}

function toRow(node: YTNode, context: ListPageContext): ListRow | null {
  if (context.rowKind === "channel") return node.is(YTNodes.Channel) ? channelRow(node) : null;
  if (context.rowKind === "playlist") {
    return node.is(YTNodes.LockupView) && playlistContentTypes.has(node.content_type) ? playlistRow(node) : null;
  }
  return videoRow(node, context);
}

const playlistContentTypes = new Set(["PLAYLIST", "PODCAST", "ALBUM"]);

function videoRow(node: YTNode, context: ListPageContext): Schema<"VideoRow"> | null {
  if (node.is(YTNodes.Video)) {
    return buildVideoRow(context, {
      videoId: node.video_id,
      title: node.title.toString(),
      duration: node.length_text ? parseClockDuration(node.length_text.toString()) : null,
      // youtubei.js names a missing owner "N/A"; a channel's own tabs leave it out.
      channel: node.author?.name && node.author.name !== "N/A" ? node.author.name : null,
      published: node.published?.toString(),
      views: node.view_count?.toString(),
    });
  }
  if (node.is(YTNodes.LockupView) && (node.content_type === "VIDEO" || node.content_type === "SHORT")) {
    const parts = metadataParts(node.metadata?.metadata);
    return buildVideoRow(context, {
      videoId: node.content_id,
      title: node.metadata?.title.toString() ?? "",
      duration: lockupDuration(node),
      channel: parts.find((part) => !isViewsText(part) && !isRelativeTime(part)) ?? null,
      published: parts.find(isRelativeTime),
      views: parts.find(isViewsText),
    });
  }
  if (node.is(YTNodes.ShortsLockupView)) {
    const videoId: unknown = node.on_tap_endpoint?.payload?.videoId;
    if (typeof videoId !== "string") return null;
    return buildVideoRow(context, {
      videoId,
      title: node.overlay_metadata.primary_text?.toString() ?? "",
      duration: null,
      channel: null,
      published: undefined,
      views: node.overlay_metadata.secondary_text?.toString(),
    });
  }
  if (node.is(YTNodes.ReelItem)) {
    return buildVideoRow(context, {
      videoId: node.id,
      title: node.title.toString(),
      duration: null,
      channel: null,
      published: undefined,
      views: node.views?.toString(),
    });
  }
  if (node.is(YTNodes.PlaylistVideo)) {
    // "191M views • 16 years ago"
    const info = (node.video_info?.toString() ?? "").split("•").map((part) => part.trim());
    return buildVideoRow(context, {
      videoId: node.id,
      title: node.title.toString(),
      duration: node.duration.seconds > 0 ? node.duration.seconds : null,
      channel: node.author?.name && node.author.name !== "N/A" ? node.author.name : null,
      published: info.find(isRelativeTime),
      views: info.find(isViewsText),
    });
  }
  return null;
}

interface VideoFields {
  videoId: string;
  title: string;
  duration: number | null;
  channel: string | null;
  published: string | undefined;
  views: string | undefined;
}

function buildVideoRow(context: ListPageContext, fields: VideoFields): Schema<"VideoRow"> {
  const plays = fields.views && isViewsText(fields.views) ? parseCount(fields.views) : null;
  return {
    videoId: fields.videoId,
    url: `https://www.youtube.com/watch?v=${fields.videoId}`,
    title: fields.title,
    duration: fields.duration,
    channel: fields.channel ?? context.channelName,
    publishedAt: fields.published ? relativeTimeToDate(fields.published, context.now) : null,
    stats: plays === null ? null : { plays },
    thumbnailUrl: youtubeThumbnailUrl(fields.videoId),
  };
}

/**
 * A video's picture from its id alone, the medium size (320x180) the hosted service's rows carry;
 * YouTube serves it for every public video.
 */
export function youtubeThumbnailUrl(videoId: string): string {
  return `https://i.ytimg.com/vi/${videoId}/mqdefault.jpg`;
}

function channelRow(node: YTNodes.Channel): Schema<"ChannelRow"> {
  // Search results now show the handle where the subscriber count was, and the count where the video count was.
  const texts = [node.subscriber_count?.toString(), node.video_count?.toString()];
  const handleFromUrl = node.author.url?.match(/\/(@[^/?#]+)/)?.[1];
  const handle = handleFromUrl ?? texts.find((text) => text?.startsWith("@")) ?? null;
  const subscriberText = texts.find((text) => text && /subscriber/i.test(text));
  return {
    kind: "channel",
    id: node.id,
    url: `https://www.youtube.com/channel/${node.id}`,
    title: node.author.name,
    handle: handle ? decodeURIComponent(handle) : null,
    subscribers: subscriberText ? parseCount(subscriberText) : null,
    thumbnail_url: absoluteUrl(node.author.thumbnails[0]?.url),
  };
}

function playlistRow(node: YTNodes.LockupView): Schema<"PlaylistRow"> {
  const thumbnail = node.content_image?.is(YTNodes.CollectionThumbnailView)
    ? node.content_image.primary_thumbnail
    : node.content_image?.as(YTNodes.ThumbnailView);
  const countText = badgeTexts(thumbnail).find((text) => /\b(videos?|episodes?|lessons?)\b/i.test(text));
  const firstRow = node.metadata?.metadata?.metadata_rows[0]?.metadata_parts?.[0]?.text?.toString();
  return {
    kind: "playlist",
    id: node.content_id,
    url: `https://www.youtube.com/playlist?list=${node.content_id}`,
    title: node.metadata?.title.toString() ?? "",
    channel: firstRow && firstRow.length > 0 ? firstRow : null,
    video_count: countText ? parseCount(countText) : null,
    thumbnail_url: absoluteUrl(thumbnail?.image[0]?.url),
  };
}

/** The texts of a lockup's metadata rows, in order ("117 views", "1 year ago", a channel name, ...). */
function metadataParts(metadata: YTNodes.ContentMetadataView | null | undefined): string[] {
  return (metadata?.metadata_rows ?? []).flatMap((row) =>
    (row.metadata_parts ?? []).map((part) => part.text?.toString() ?? "").filter((text) => text.length > 0),
  );
}

/** A video lockup's length is the clock badge on its thumbnail ("1:00:01"); live streams show "LIVE" instead. */
function lockupDuration(node: YTNodes.LockupView): number | null {
  const thumbnail = node.content_image?.is(YTNodes.ThumbnailView) ? node.content_image : null;
  for (const text of badgeTexts(thumbnail)) {
    const seconds = parseClockDuration(text);
    if (seconds !== null) return seconds;
  }
  return null;
}

function badgeTexts(thumbnail: YTNodes.ThumbnailView | null | undefined): string[] {
  return (thumbnail?.overlays ?? []).flatMap((overlay) =>
    overlay.is(YTNodes.ThumbnailBottomOverlayView, YTNodes.ThumbnailOverlayBadgeView)
      ? overlay.badges.map((badge) => badge.text)
      : [],
  );
}

function absoluteUrl(url: string | undefined): string | null {
  if (!url) return null;
  return url.startsWith("//") ? `https:${url}` : url;
}

function isViewsText(text: string): boolean {
  return /\bviews?$/i.test(text.trim());
}

function isRelativeTime(text: string): boolean {
  return relativeTimePattern.test(text);
}

/** "12:34" or "1:02:03" in seconds; null for anything else ("LIVE", "SHORTS", "Premiere"). */
export function parseClockDuration(text: string): number | null {
  const trimmed = text.trim();
  if (!/^\d+(:\d{1,2}){1,2}$/.test(trimmed)) return null;
  return trimmed.split(":").reduce((total, part) => total * 60 + Number(part), 0);
}

const countMultipliers: Record<string, number> = { k: 1e3, m: 1e6, b: 1e9, bn: 1e9 };

/**
 * A displayed count as an integer: "12,345 views", "1.2M views", "895k views" (en-GB writes
 * "191m"), "1 view", "No views", "234K subscribers", "102 videos"; null when it holds no count.
 */
export function parseCount(text: string): number | null {
  const trimmed = text.trim();
  if (/^no\b/i.test(trimmed)) return 0;
  const match = trimmed.match(/^([\d,]+(?:\.\d+)?)\s*(k|m|bn|b)?\b/i);
  if (!match?.[1]) return null;
  const value = Number(match[1].replace(/,/g, ""));
  const multiplier = match[2] ? (countMultipliers[match[2].toLowerCase()] ?? 1) : 1;
  return Math.round(value * multiplier);
}

const relativeTimePattern = /(\d+)\s+(second|minute|hour|day|week|month|year)s?\s+ago\b/i;
const unitMilliseconds: Record<string, number> = {
  second: 1_000,
  minute: 60_000,
  hour: 3_600_000,
  day: 86_400_000,
  week: 7 * 86_400_000,
  // Calendar months and years vary; lists only give the rounded age, so the result is approximate anyway.
  month: 30 * 86_400_000,
  year: 365 * 86_400_000,
};

/**
 * "2 days ago" (also "Streamed 3 weeks ago", "Premiered 1 year ago") as an ISO date-time
 * counted back from `now`; as exact as YouTube's rounding allows. Null for anything else.
 */
export function relativeTimeToDate(text: string, now: Date): string | null {
  const match = text.match(relativeTimePattern);
  if (!match?.[1] || !match[2]) return null;
  const unit = unitMilliseconds[match[2].toLowerCase()];
  if (unit === undefined) return null;
  return new Date(now.getTime() - Number(match[1]) * unit).toISOString();
}
