/** What a Spotify address names. */
export type SpotifyLink =
  /** An episode of a podcast: `open.spotify.com/episode/{id}`. */
  | { kind: "episode"; id: string; url: string }
  /** A podcast show: `open.spotify.com/show/{id}`. */
  | { kind: "show"; id: string; url: string }
  /** Anything else on Spotify: music (tracks, albums, playlists), artists, users. */
  | { kind: "other"; url: string };

/** Spotify's ids are 22 base-62 characters. */
const idPattern = "[A-Za-z0-9]{22}";
export const spotifyIdPattern = new RegExp(`^${idPattern}$`);

/**
 * `/episode/{id}` and `/show/{id}`, after an optional `intl-xx` (or `intl-xx-YY`) locale and an
 * embed prefix (`/embed/`, `/embed-podcast/`); a trailing slash and any query (`?si=…`) aside.
 */
const openPath = new RegExp(
  `^/(?:intl-[a-z]{2}(?:[-_][a-z]{2})?/)?(?:embed/|embed-podcast/)?(episode|show)/(${idPattern})/?$`,
  "i",
);

/**
 * Reads a Spotify address, with or without its scheme, without touching the network; null when
 * it is not Spotify's. Its `url` is the canonical address.
 */
export function parseSpotifyLink(input: string): SpotifyLink | null {
  const value = input.trim();
  if (/\s/.test(value)) return null;
  const url = URL.parse(/^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `https://${value}`);
  if (!url || (url.protocol !== "https:" && url.protocol !== "http:") || url.username || url.password) return null;
  if (url.hostname.toLowerCase() !== "open.spotify.com") return null;
  const path = openPath.exec(url.pathname);
  return path ? linkOf(path[1] ?? "", path[2] ?? "") : { kind: "other", url: url.href };
}

function linkOf(kind: string, id: string): SpotifyLink {
  const type = kind.toLowerCase() === "show" ? "show" : "episode";
  return { kind: type, id, url: `https://open.spotify.com/${type}/${id}` };
}
