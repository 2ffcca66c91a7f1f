import * as cheerio from "cheerio";
import type { FeedEpisode, ParsedFeed } from "./feeds.ts";
import { hasMediaExtension } from "./media-addresses.ts";

/** What an HTML page says about the podcast it may belong to. */
export interface EpisodePage {
  /** The feeds it links to (`<link rel="alternate" type="application/rss+xml">` and Atom), absolute, in page order. */
  feedUrls: string[];
  /** The addresses it calls itself: the fetched one, `<link rel="canonical">`, `og:url`. */
  pageUrls: string[];
  /** `og:title`, `twitter:title`, `<title>`, `<h1>`. */
  titles: string[];
  /** Media it plays or links to: `og:audio`, `<audio>`, `<source>`, links to media files. */
  mediaUrls: string[];
  /** Whether it looks like a podcast page at all (media, a feed, or "podcast" in its metadata). */
  looksLikePodcast: boolean;
  /** Its `<meta>` values by `property` or `name`, lowercased; the first of each wins, and a few hundred at most are kept. */
  meta: Record<string, string>;
}

/** The most `<meta>` values kept, and the longest: enough for any real page's head, bounded for a hostile one. */
const metaLimits = { entries: 200, characters: 4_000 };

const feedTypes = new Set(["application/rss+xml", "application/atom+xml", "application/xml", "text/xml"]);

/** Reads the feed links and the episode clues of an HTML page. */
export function readEpisodePage(html: string, pageUrl: URL): EpisodePage {
  const $ = cheerio.load(html);
  const absolute = (value: string | undefined): string | null => {
    if (!value?.trim()) return null;
    try {
      const url = new URL(value.trim(), pageUrl);
      return url.protocol === "http:" || url.protocol === "https:" ? url.href : null;
    } catch {
      return null;
    }
  };
  const collect = (values: (string | undefined)[]): string[] => [
    ...new Set(values.map(absolute).filter((value): value is string => value !== null)),
  ];
  const meta = (key: string) => $(`meta[property="${key}"], meta[name="${key}"]`).first().attr("content");

  const feedUrls = collect(
    $('link[rel~="alternate"]')
      .filter((_, link) => feedTypes.has(($(link).attr("type") ?? "").split(";")[0]?.trim().toLowerCase() ?? ""))
      .map((_, link) => $(link).attr("href"))
      .get(),
  );
  const linkedMedia = $("a[href]")
    .map((_, anchor) => $(anchor).attr("href"))
    .get()
    .filter((href) => {
      const url = absolute(href);
      return url !== null && hasMediaExtension(new URL(url));
    });
  const mediaUrls = collect([
    meta("og:audio"),
    meta("og:audio:url"),
    meta("og:audio:secure_url"),
    ...$("audio[src], audio source[src], video source[src]")
      .map((_, element) => $(element).attr("src"))
      .get(),
    ...linkedMedia,
  ]);
  const titles = [meta("og:title"), meta("twitter:title"), $("title").first().text(), $("h1").first().text()]
    .map((title) => normalizedTitle(title ?? ""))
    .filter((title) => title.length > 0);
  const metadata = [meta("og:type"), meta("og:site_name"), meta("description"), $("title").first().text()].join(" ");
  return {
    feedUrls,
    pageUrls: collect([pageUrl.href, $('link[rel="canonical"]').attr("href"), meta("og:url")]),
    titles,
    mediaUrls,
    looksLikePodcast: feedUrls.length > 0 || mediaUrls.length > 0 || /podcast/i.test(metadata),
    meta: metaValues($),
  };
}

function metaValues($: cheerio.CheerioAPI): Record<string, string> {
  const values = new Map<string, string>();
  for (const element of $("meta[content]").toArray()) {
    if (values.size >= metaLimits.entries) break;
    const key = ($(element).attr("property") ?? $(element).attr("name"))?.trim().toLowerCase();
    if (!key || values.has(key)) continue;
    values.set(key, ($(element).attr("content") ?? "").slice(0, metaLimits.characters));
  }
  return Object.fromEntries(values);
}

/**
 * The feed's episode this page is about: the item whose link is the page, whose enclosure the
 * page plays, or whose title the page carries. `show` when the page is the show's own page.
 */
export function matchEpisodeOnPage(feed: ParsedFeed, page: EpisodePage): FeedEpisode | "show" | undefined {
  const pageKeys = new Set(page.pageUrls.map(pageKey));
  const mediaKeys = new Set(page.mediaUrls.map(pageKey));
  const byLink = feed.episodes.find((episode) => episode.link !== null && pageKeys.has(pageKey(episode.link)));
  if (byLink) return byLink;
  const byMedia = feed.episodes.find((episode) => mediaKeys.has(pageKey(episode.enclosureUrl)));
  if (byMedia) return byMedia;
  const byTitle = feed.episodes.find((episode) =>
    page.titles.some((title) => titleNames(title, normalizedTitle(episode.title ?? ""))),
  );
  if (byTitle) return byTitle;
  return feed.link !== null && pageKeys.has(pageKey(feed.link)) ? "show" : undefined;
}

/** An address without scheme, `www.`, query, fragment and trailing slash: how page links are compared. */
function pageKey(address: string): string {
  try {
    const url = new URL(address);
    return `${url.hostname.replace(/^www\./, "")}${url.pathname.replace(/\/+$/, "")}`;
  } catch {
    return address;
  }
}

function normalizedTitle(title: string): string {
  return title.normalize("NFKC").replace(/\s+/g, " ").trim().toLowerCase();
}

/** Whether a page title is the episode title, alone or beside the show's name ("Title | Show", "Show: Title"). */
function titleNames(pageTitle: string, episodeTitle: string): boolean {
  if (episodeTitle.length === 0) return false;
  if (pageTitle === episodeTitle) return true;
  // Short titles ("Episode 5") are too ambiguous to be found inside a longer one.
  if (episodeTitle.length < 8) return false;
  // String tests, not a pattern built from the title: a page title of many separators made that quadratic.
  const isSeparator = (character: string) => /^[\s|·•:–—-]$/.test(character);
  return (
    (pageTitle.startsWith(episodeTitle) && isSeparator(pageTitle.charAt(episodeTitle.length))) ||
    (pageTitle.endsWith(episodeTitle) && isSeparator(pageTitle.charAt(pageTitle.length - episodeTitle.length - 1)))
  );
}
