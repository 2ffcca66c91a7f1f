import * as cheerio from "cheerio";
import { type Episode, parseFeed } from "podcast-partytime";
import { logger as partytimeLogger } from "podcast-partytime/dist/logger.js";
import type { PublisherTranscript, PublisherTranscriptLink } from "./audio-source.ts";

// podcast-partytime writes its own pino lines to stdout for every odd item of a real-world
// feed; they would interleave with the service's log, and what matters is logged by us.
partytimeLogger.level = "silent";

/** One episode of a feed that has a media enclosure. */
export interface FeedEpisode {
  guid: string | null;
  title: string | null;
  /** The episode's web page. */
  link: string | null;
  publishedAt: Date | null;
  enclosureUrl: string;
  enclosureType: string | null;
  durationSeconds: number | null;
  imageUrl: string | null;
  /** The `podcast:transcript` links, best first. */
  transcripts: PublisherTranscriptLink[];
  /** The show notes as plain text (`description`, else `content:encoded`, else `itunes:summary`). */
  description: string | null;
  /** `itunes:keywords`. */
  keywords: string[];
  /** The `podcast:chapters` file. */
  chaptersUrl: string | null;
}

/** A podcast feed, reduced to what a transcript needs. */
export interface ParsedFeed {
  format: "rss" | "atom";
  title: string | null;
  /** The show's web page. */
  link: string | null;
  /** BCP-47, canonical case; null when the feed declares none. */
  language: string | null;
  imageUrl: string | null;
  /** Episodes with an enclosure, in document order. */
  episodes: FeedEpisode[];
}

/** Reads a podcast feed by its address, under the same rules, limits and parser as `AudioSources.resolve`. */
export interface FeedReader {
  /**
   * The feed at `feedUrl`, parsed. A feed that answers 404 or 410, is no RSS or Atom feed or does
   * not parse is `podcast_feed_not_found` (`feed_unreadable`, `not_a_feed`) naming it.
   */
  readFeed(feedUrl: string, options?: { signal?: AbortSignal }): Promise<ParsedFeed>;
}

/** Which feed format a document is, by its root element; null when it is no feed. */
export function feedFormatOf(text: string): "rss" | "atom" | null {
  const root = rootElementName(text);
  if (root === "rss") return "rss";
  if (root === "feed") return "atom";
  return null;
}

/** What may stand before an XML document's root element, and where each ends. */
const prologParts = [
  { opens: "<?", closes: "?>" },
  { opens: "<!--", closes: "-->" },
  { opens: "<!doctype", closes: ">" },
] as const;

/**
 * The name of the root element, after the XML declaration, processing instructions, comments and
 * a doctype. A scan that looks at each character once: fetched documents are hostile, and a
 * backtracking pattern here once took 36 s over 151 bytes.
 */
function rootElementName(text: string): string | null {
  let at = text.startsWith("\uFEFF") ? 1 : 0;
  for (;;) {
    while (at < text.length && /\s/.test(text.charAt(at))) at++;
    const part = prologParts.find(({ opens }) => text.slice(at, at + opens.length).toLowerCase() === opens);
    if (!part) break;
    const end = text.indexOf(part.closes, at + part.opens.length);
    if (end < 0) return null;
    at = end + part.closes.length;
  }
  if (text.charAt(at) !== "<") return null;
  let end = at + 1;
  while (end < text.length && /[\w:-]/.test(text.charAt(end))) end++;
  return end > at + 1 ? text.slice(at + 1, end) : null;
}

/** Parses an RSS (with podcast-partytime: iTunes and Podcasting 2.0 namespaces) or Atom feed; null when it does not parse. */
export function parseFeedText(text: string, feedUrl: URL): ParsedFeed | null {
  const format = feedFormatOf(text);
  if (format === "rss") return parseRss(text, feedUrl);
  if (format === "atom") return parseAtom(text, feedUrl);
  return null;
}

/** The newest episode by publication date; the first in the document when none is dated. */
export function newestEpisode(feed: ParsedFeed): FeedEpisode | undefined {
  let newest = feed.episodes[0];
  for (const episode of feed.episodes) {
    const time = episode.publishedAt?.getTime() ?? Number.NEGATIVE_INFINITY;
    if (time > (newest?.publishedAt?.getTime() ?? Number.NEGATIVE_INFINITY)) newest = episode;
  }
  return newest;
}

/** The episode a client named, by guid or by enclosure URL. */
export function findEpisode(feed: ParsedFeed, wanted: string): FeedEpisode | undefined {
  const wantedUrl = canonicalHref(wanted);
  return (
    feed.episodes.find((episode) => episode.guid === wanted) ??
    feed.episodes.find((episode) => wantedUrl !== null && canonicalHref(episode.enclosureUrl) === wantedUrl)
  );
}

/** The format a transcript link declares, by MIME type, else by file extension; null when unknown. */
export function transcriptFormatOf(type: string, url: string): PublisherTranscript["format"] | null {
  const mime = type.split(";")[0]?.trim().toLowerCase() ?? "";
  const byType: Record<string, PublisherTranscript["format"]> = {
    "application/json": "json",
    "text/vtt": "vtt",
    "application/srt": "srt",
    "application/x-subrip": "srt",
    "application/x-srt": "srt",
    "text/srt": "srt",
    "text/x-srt": "srt",
    "text/html": "html",
    "text/plain": "text",
  };
  const byExtension: Record<string, PublisherTranscript["format"]> = {
    json: "json",
    vtt: "vtt",
    srt: "srt",
    html: "html",
    htm: "html",
    txt: "text",
  };
  const extension = /\.([a-z]+)(?:$|[?#])/i.exec(url)?.[1]?.toLowerCase() ?? "";
  return byType[mime] ?? byExtension[extension] ?? null;
}

/** Timed formats first (JSON, VTT, SRT), then HTML, then plain text; within the episode's language before others. */
const formatRank: Record<PublisherTranscript["format"], number> = { json: 0, vtt: 1, srt: 2, html: 3, text: 4 };

/** Orders transcript links best first: those in the episode's language, then by format. */
export function rankTranscripts(
  links: readonly PublisherTranscriptLink[],
  language: string | null,
): PublisherTranscriptLink[] {
  const wantedLanguage = primarySubtag(language);
  const score = (link: PublisherTranscriptLink) => {
    const languageMatches =
      wantedLanguage === null || link.language === null || primarySubtag(link.language) === wantedLanguage;
    const format = transcriptFormatOf(link.type, link.url);
    return (languageMatches ? 0 : 10) + (format === null ? 5 : formatRank[format]);
  };
  return [...links].sort((a, b) => score(a) - score(b));
}

/** A language tag in canonical case (`en-us` → `en-US`), or null when absent or malformed. */
export function canonicalLanguage(tag: string | undefined | null): string | null {
  const trimmed = tag?.trim();
  if (!trimmed) return null;
  try {
    return Intl.getCanonicalLocales(trimmed)[0] ?? null;
  } catch {
    return null;
  }
}

function parseRss(text: string, feedUrl: URL): ParsedFeed | null {
  let feed: ReturnType<typeof parseFeed>;
  try {
    // Items without a guid are still episodes: they are matched by enclosure URL instead.
    feed = parseFeed(text, { allowMissingGuid: true });
  } catch {
    return null;
  }
  if (!feed) return null;
  const language = canonicalLanguage(feed.language);
  const showImage = absolute(feed.itunesImage) ?? absolute(feed.image?.url);
  const episodes: FeedEpisode[] = [];
  for (const item of feed.items) {
    const enclosureUrl = absolute(item.enclosure?.url, feedUrl);
    if (!enclosureUrl) continue;
    episodes.push({
      guid: item.guid || null,
      title: item.title?.trim() || null,
      link: absolute(item.link, feedUrl),
      publishedAt: validDate(item.pubDate),
      enclosureUrl,
      enclosureType: item.enclosure.type || null,
      durationSeconds: item.duration > 0 ? item.duration : null,
      imageUrl: absolute(item.itunesImage) ?? absolute(item.image) ?? showImage,
      transcripts: rankTranscripts(transcriptLinksOf(item, language, feedUrl), language),
      description: plainText(item.description ?? item.content ?? item.summary),
      keywords: (item.keywords ?? []).flatMap((keyword) => keyword.trim() || []).slice(0, mostKeywords),
      chaptersUrl: absolute(item.podcastChapters?.url, feedUrl),
    });
  }
  return {
    format: "rss",
    title: feed.title?.trim() || null,
    link: absolute(feed.link, feedUrl),
    language,
    imageUrl: showImage,
    episodes,
  };
}

function transcriptLinksOf(item: Episode, feedLanguage: string | null, feedUrl: URL): PublisherTranscriptLink[] {
  const links: PublisherTranscriptLink[] = [];
  for (const transcript of item.podcastTranscripts ?? []) {
    const url = absolute(transcript.url, feedUrl);
    if (!url) continue;
    links.push({
      url,
      type: transcript.type,
      // The namespace: without a language attribute, the transcript is in the feed's language.
      language: canonicalLanguage(transcript.language) ?? feedLanguage,
      rel: transcript.rel ?? null,
    });
  }
  return links;
}

/** Atom, which podcast-partytime does not read: entries with a `rel="enclosure"` link are episodes. */
function parseAtom(text: string, feedUrl: URL): ParsedFeed | null {
  const $ = cheerio.load(text, { xml: true });
  const root = $("feed").first();
  if (root.length === 0) return null;
  const language = canonicalLanguage(root.attr("xml:lang"));
  const showImage = absolute(root.children("logo").first().text()) ?? absolute(root.children("icon").first().text());
  const episodes: FeedEpisode[] = [];
  root.children("entry").each((_, element) => {
    const entry = $(element);
    const enclosure = entry.children('link[rel="enclosure"]').first();
    const enclosureUrl = absolute(enclosure.attr("href"), feedUrl);
    if (!enclosureUrl) return;
    const pageLink = entry.children("link").filter((_, link) => ($(link).attr("rel") ?? "alternate") === "alternate");
    episodes.push({
      guid: entry.children("id").first().text().trim() || null,
      title: entry.children("title").first().text().trim() || null,
      link: absolute(pageLink.first().attr("href"), feedUrl),
      publishedAt: validDate(new Date(entry.children("published").text() || entry.children("updated").text())),
      enclosureUrl,
      enclosureType: enclosure.attr("type") ?? null,
      durationSeconds: null,
      imageUrl: showImage,
      transcripts: [],
      description: plainText(entry.children("summary").first().text() || entry.children("content").first().text()),
      keywords: [],
      chaptersUrl: null,
    });
  });
  const showLink = root.children("link").filter((_, link) => ($(link).attr("rel") ?? "alternate") === "alternate");
  return {
    format: "atom",
    title: root.children("title").first().text().trim() || null,
    link: absolute(showLink.first().attr("href"), feedUrl),
    language,
    imageUrl: showImage,
    episodes,
  };
}

/** The most keywords an episode keeps. */
const mostKeywords = 100;

/** The longest show notes kept, in characters. */
const longestDescription = 20_000;

/**
 * Show notes as plain text: feeds write them as HTML as often as not, so markup becomes its
 * text, paragraphs and line breaks new lines.
 */
function plainText(value: string | undefined): string | null {
  // Markup is at most a few times its text: what lies beyond this could never be kept.
  const trimmed = value?.trim().slice(0, longestDescription * 10);
  if (!trimmed) return null;
  if (!trimmed.includes("<")) return trimmed.slice(0, longestDescription);
  const $ = cheerio.load(trimmed);
  $("br").replaceWith("\n");
  $("p, li, div, h1, h2, h3, h4").after("\n");
  const lines = $.root()
    .text()
    .split("\n")
    .map((line) => line.trimEnd());
  const text = lines
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
  return text ? text.slice(0, longestDescription) : null;
}

/** An http(s) address, resolved against `base` when given; images take none, since feeds put malformed values in them (`href=http://…">`). */
function absolute(value: string | undefined, base?: URL): string | null {
  const trimmed = value?.trim();
  if (!trimmed) return null;
  try {
    const url = new URL(trimmed, base);
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : null;
  } catch {
    return null;
  }
}

function validDate(date: Date | undefined): Date | null {
  return date && !Number.isNaN(date.getTime()) ? date : null;
}

function canonicalHref(value: string): string | null {
  try {
    return new URL(value).href;
  } catch {
    return null;
  }
}

function primarySubtag(language: string | null): string | null {
  return language?.split("-")[0]?.toLowerCase() ?? null;
}
