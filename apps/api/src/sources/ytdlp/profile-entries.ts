import type { Schema } from "@verbatim/contract";
import type { ListingPage } from "../listing-source.ts";
import type { InfoDict } from "./info-dict.ts";
import { httpAddress, isRecord, trimmedText } from "./info-dict-values.ts";
import { platformOfAddress, type YtdlpPlatform } from "./ytdlp-platforms.ts";
import type { YtdlpEntries } from "./ytdlp-sidecar.ts";

/**
 * Entries one yt-dlp call reads. A client's page of 50 takes one call or two; each call walks
 * the profile from its newest post (the platforms page by time, not by offset), so a page
 * deeper in costs more of the platform's own pages.
 */
export const entriesPerPage = 50;

/** How deep a profile is listed: past it the list ends, since every page walks from the newest post. */
export const deepestEntry = 300;

/**
 * The page of a profile's list that starts at entry `start`, from what yt-dlp listed there: one
 * entry more than a page, which says whether another page follows (up to `deepestEntry`).
 */
export function profilePage(platform: YtdlpPlatform, listed: YtdlpEntries, start: number): ListingPage {
  const entries = listed.entries.slice(0, entriesPerPage);
  const next = start + entriesPerPage;
  const more = listed.entries.length > entriesPerPage && next < deepestEntry;
  return {
    rows: entries.flatMap((entry) => entryRow(platform, entry) ?? []),
    continuation: more ? String(next) : null,
  };
}

/** What an item id of a platform looks like; anything else in an entry is not taken for one. */
const itemIdShape = /^[\w-]{1,64}$/;

/**
 * One row of a profile's list from an unresolved entry of yt-dlp's listing (TikTokUserIE's
 * `url_result` with `_parse_aweme_video_web(..., extract_flat=True)`): its id, its address, and
 * what the listing says of it. Entries are the platform's words, so each field is checked; an
 * entry without an id of the platform's shape, or whose address is not on the platform, is no
 * row. Null for such an entry.
 */
export function entryRow(platform: YtdlpPlatform, entry: InfoDict): Schema<"VideoRow"> | null {
  const videoId = platform.itemIdFields.map((field) => trimmedText(entry[field])).find(Boolean);
  if (!videoId || !itemIdShape.test(videoId)) return null;
  const url = platformAddress(platform, entry.url) ?? platformAddress(platform, entry.webpage_url);
  if (!url) return null;
  const plays = count(entry.view_count);
  const seconds = positiveNumber(entry.timestamp);
  return {
    videoId,
    url,
    title: trimmedText(entry.description) ?? trimmedText(entry.title) ?? "",
    duration: positiveNumber(entry.duration),
    channel: platform.channelFields.map((field) => trimmedText(entry[field])).find(Boolean) ?? null,
    publishedAt: seconds === null ? null : new Date(seconds * 1000).toISOString(),
    stats: plays === null ? null : { plays },
    thumbnailUrl: thumbnailOf(entry),
  };
}

/** The listed picture the entry prefers (yt-dlp ranks a moving cover below the still ones). */
function thumbnailOf(entry: InfoDict): string | null {
  const listed = Array.isArray(entry.thumbnails) ? entry.thumbnails.filter(isRecord) : [];
  const ranked = listed
    .map((thumbnail, order) => ({
      url: httpAddress(thumbnail.url),
      preference: finite(thumbnail.preference) ?? 0,
      order,
    }))
    .filter((thumbnail): thumbnail is { url: string; preference: number; order: number } => thumbnail.url !== null)
    .sort((a, b) => b.preference - a.preference || a.order - b.order);
  return ranked[0]?.url ?? httpAddress(entry.thumbnail);
}

/** An https address on one of the platform's hosts. */
function platformAddress(platform: YtdlpPlatform, value: unknown): string | null {
  const address = httpAddress(value);
  if (!address) return null;
  const url = new URL(address);
  return url.protocol === "https:" && platformOfAddress(url)?.platform === platform.platform ? address : null;
}

function finite(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

function positiveNumber(value: unknown): number | null {
  const number = finite(value);
  return number !== null && number > 0 ? number : null;
}

function count(value: unknown): number | null {
  const number = finite(value);
  return number !== null && number >= 0 && Number.isSafeInteger(number) ? number : null;
}
