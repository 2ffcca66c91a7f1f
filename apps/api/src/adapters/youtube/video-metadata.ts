import type { Innertube } from "youtubei.js";
import { callInnertube } from "./innertube-calls.ts";
import {
  type CaptionTrack,
  readPlayerResponse,
  type TranslationLanguage,
  type VideoDetails,
} from "./player-response.ts";

/** What YouTube's player response says about a video beyond its streams. */
export interface VideoPage {
  details: VideoDetails;
  keywords: string[];
  channelId: string | null;
  /** The channel's address as YouTube gives it (`/@handle`), in https; null when it does not. */
  channelUrl: string | null;
  views: number | null;
  publishedAt: Date | null;
  /** As YouTube lists them, each address once per width. */
  thumbnails: Array<{ url: string; width: number | null; height: number | null }>;
  tracks: CaptionTrack[];
  translationLanguages: TranslationLanguage[];
}

/** Where what YouTube says about a video comes from. */
export interface VideoPageSource {
  /** Throws `VideoUnavailableError` (private, live, gone, …) or `UpstreamError`. */
  videoPage(videoId: string): Promise<VideoPage>;
}

/** The player response's fields read here beyond those `readPlayerResponse` reads. */
interface PlayerMetadata {
  videoDetails?: {
    keywords?: unknown;
    channelId?: unknown;
    viewCount?: unknown;
    thumbnail?: { thumbnails?: unknown };
  };
  microformat?: {
    playerMicroformatRenderer?: { publishDate?: unknown; uploadDate?: unknown; ownerProfileUrl?: unknown };
  };
}

/**
 * A video's page from one WEB `player` call through youtubei.js: the WEB client's answer carries
 * the microformat (publication date, the channel's address) that the ANDROID answer the captions
 * read leaves out, beside the same details and caption tracks.
 */
export class YoutubeiVideoPages implements VideoPageSource {
  constructor(private readonly innertube: () => Promise<Innertube>) {}

  async videoPage(videoId: string): Promise<VideoPage> {
    return readVideoPage(await callInnertube(await this.innertube(), "/player", { videoId, client: "WEB" }), videoId);
  }
}

/** Reads a player response as a video's page; a video YouTube does not play fails as `readPlayerResponse` says. */
export function readVideoPage(body: unknown, videoId: string): VideoPage {
  const { details, tracks, translationLanguages } = readPlayerResponse(body, videoId);
  const response = body as PlayerMetadata;
  const video = response.videoDetails ?? {};
  const microformat = response.microformat?.playerMicroformatRenderer ?? {};
  return {
    details,
    keywords: Array.isArray(video.keywords) ? video.keywords.flatMap((keyword) => text(keyword) ?? []) : [],
    channelId: text(video.channelId),
    channelUrl: httpsAddress(microformat.ownerProfileUrl),
    views: count(video.viewCount),
    publishedAt: dateOf(microformat.publishDate) ?? dateOf(microformat.uploadDate),
    thumbnails: thumbnailsOf(video.thumbnail?.thumbnails),
    tracks: tracks ?? [],
    translationLanguages,
  };
}

function thumbnailsOf(value: unknown): VideoPage["thumbnails"] {
  if (!Array.isArray(value)) return [];
  const thumbnails: VideoPage["thumbnails"] = [];
  for (const entry of value) {
    const fields = (typeof entry === "object" && entry !== null ? entry : {}) as Record<string, unknown>;
    const url = httpsAddress(fields.url);
    const width = count(fields.width);
    if (!url || thumbnails.some((known) => known.url === url && known.width === width)) continue;
    thumbnails.push({ url, width, height: count(fields.height) });
  }
  return thumbnails;
}

function text(value: unknown): string | null {
  return typeof value === "string" && value.trim() !== "" ? value : null;
}

/** A count YouTube writes as a string of digits or a number; null for anything else. */
function count(value: unknown): number | null {
  const number = typeof value === "string" && /^\d{1,15}$/.test(value) ? Number(value) : value;
  return typeof number === "number" && Number.isSafeInteger(number) && number >= 0 ? number : null;
}

/** An http(s) address in https (YouTube writes its own as `http://www.youtube.com/...`); null for anything else. */
function httpsAddress(value: unknown): string | null {
  if (typeof value !== "string") return null;
  try {
    const url = new URL(value);
    if (url.protocol !== "http:" && url.protocol !== "https:") return null;
    url.protocol = "https:";
    return url.toString();
  } catch {
    return null;
  }
}

function dateOf(value: unknown): Date | null {
  if (typeof value !== "string") return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}
