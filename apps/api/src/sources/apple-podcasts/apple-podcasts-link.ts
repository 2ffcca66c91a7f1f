/** What an Apple Podcasts address names. */
export type ApplePodcastsLink =
  /** One episode: `/{country}/podcast/{slug}/id{show}?i={episode}`. */
  | { kind: "episode"; country: string; showId: string; episodeId: string; url: string }
  /** A show: the same address without `?i=`. */
  | { kind: "show"; country: string; showId: string; url: string }
  /** An episode named without its show's id (`/podcast/{slug}?i={episode}`): the directory finds shows by id. */
  | { kind: "episode-without-show"; url: string }
  /** Another Apple Podcasts page: a channel, a category, the front page. */
  | { kind: "other"; url: string };

/** Where Apple Podcasts links live; `itunes.apple.com/{country}/podcast/…` is their older form. */
const hosts = new Set(["podcasts.apple.com", "itunes.apple.com"]);

/** `/{country}/podcast/{slug}/id{show}`, with the country, the slug or both left out. */
const podcastPath = /^\/(?:([a-z]{2})\/)?podcast(?:\/[^/]+)?\/id(\d{1,16})\/?$/i;
const podcastPathWithoutId = /^\/(?:[a-z]{2}\/)?podcast\/[^/]+\/?$/i;

/** The store front a link without a country names. */
const defaultCountry = "us";

/**
 * Reads an Apple Podcasts address, with or without its scheme, without touching the network;
 * null when it is not on Apple Podcasts. Its `url` is the canonical form of what it names.
 */
export function parseApplePodcastsLink(input: string): ApplePodcastsLink | null {
  const url = addressOf(input);
  if (!url || !hosts.has(url.hostname.toLowerCase())) return null;
  const episodeId = /^\d{1,16}$/.exec(url.searchParams.get("i") ?? "")?.[0];
  const match = podcastPath.exec(url.pathname);
  if (!match) {
    if (episodeId && podcastPathWithoutId.test(url.pathname)) return { kind: "episode-without-show", url: url.href };
    // The directory's own lookups and searches share the older host; they name no podcast.
    return url.hostname.toLowerCase() === "podcasts.apple.com" ? { kind: "other", url: url.href } : null;
  }
  const country = (match[1] ?? defaultCountry).toLowerCase();
  const showId = match[2] ?? "";
  const show = `https://podcasts.apple.com/${country}/podcast/id${showId}`;
  if (episodeId) return { kind: "episode", country, showId, episodeId, url: `${show}?i=${episodeId}` };
  return { kind: "show", country, showId, url: show };
}

/** An http(s) URL without credentials, with or without its scheme; null otherwise. */
function addressOf(input: string): URL | null {
  const value = input.trim();
  if (/\s/.test(value)) return null;
  const url = URL.parse(/^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `https://${value}`);
  if (!url || (url.protocol !== "https:" && url.protocol !== "http:") || url.username || url.password) return null;
  return url;
}
