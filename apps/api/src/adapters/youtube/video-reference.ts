/** What a `video` input names, as far as YouTube is concerned. */
export type VideoReference =
  /** A YouTube video, by its 11-character id. */
  | { kind: "youtube"; videoId: string }
  /** A YouTube address that names no video (a channel, a playlist, a malformed id). */
  | { kind: "youtube-without-video" }
  /** An http(s) address of another site. */
  | { kind: "other-url"; url: URL }
  /** Neither an id nor an address. */
  | { kind: "malformed" };

const videoIdPattern = /^[A-Za-z0-9_-]{11}$/;

/** Hosts that serve YouTube videos; `m.` and `music.` pages take the same paths as `www.`. */
const youtubeHosts = new Set([
  "youtube.com",
  "www.youtube.com",
  "m.youtube.com",
  "music.youtube.com",
  "youtube-nocookie.com",
  "www.youtube-nocookie.com",
]);

/** Path prefixes followed by the id: `/shorts/<id>`, `/live/<id>`, `/embed/<id>`, and the old `/v/` and `/e/`. */
const idPathPrefixes = new Set(["shorts", "live", "embed", "v", "e"]);

/** Whether a string is a well-formed YouTube video id. */
export function isVideoId(value: string): boolean {
  return videoIdPattern.test(value);
}

/** Reads a bare id or any YouTube video address (watch, youtu.be, shorts, live, embed; m., music., extra parameters). */
export function parseVideoReference(input: string): VideoReference {
  const value = input.trim();
  if (isVideoId(value)) return { kind: "youtube", videoId: value };
  const url = parseAddress(value);
  if (!url) return { kind: "malformed" };
  const host = url.hostname.toLowerCase();
  if (host === "youtu.be") return videoOrNothing(url.pathname.split("/")[1]);
  if (!youtubeHosts.has(host)) return { kind: "other-url", url };
  const [first, second] = url.pathname.split("/").filter((part) => part.length > 0);
  if (first === "watch") return videoOrNothing(url.searchParams.get("v") ?? undefined);
  if (first && idPathPrefixes.has(first)) return videoOrNothing(second);
  return { kind: "youtube-without-video" };
}

/** An http(s) URL, with or without its scheme (`youtu.be/<id>` is common in pasted input). */
function parseAddress(value: string): URL | null {
  if (/\s/.test(value)) return null;
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `https://${value}`;
  try {
    const url = new URL(withScheme);
    if (url.protocol !== "https:" && url.protocol !== "http:") return null;
    return url.hostname.includes(".") ? url : null;
  } catch {
    return null;
  }
}

function videoOrNothing(candidate: string | undefined): VideoReference {
  return candidate && isVideoId(candidate)
    ? { kind: "youtube", videoId: candidate }
    : { kind: "youtube-without-video" };
}
