import { isVideoId, parseVideoReference } from "./video-reference.ts";

/** What a `channel` input names. */
export type ChannelReference =
  /** A `UC...` id, bare or from a `/channel/UC...` address: browsable as is. */
  | { kind: "id"; channelId: string }
  /** A handle or a vanity address; YouTube's `navigation/resolve_url` turns this URL into the id. */
  | { kind: "vanity"; url: string }
  | ForeignReference;

/** What a `playlist` input names. */
export type PlaylistReference = { kind: "id"; playlistId: string } | ForeignReference;

/** What an input names when it is no reference to the list asked for. */
export type ForeignReference =
  /** A YouTube address that clearly names a video (watch, youtu.be, shorts, live, embed): the video endpoint serves it. */
  | { kind: "video" }
  /** An http(s) address of another site (a feed, a podcast page, a media file): the video endpoint serves those too. */
  | { kind: "other-site" }
  /** Neither the list's kind of reference nor an address another endpoint serves. */
  | { kind: "malformed" };

const channelIdPattern = /^UC[A-Za-z0-9_-]{22}$/;
/** YouTube handles: `@` and 3 to 30 letters, digits, `.`, `_` and `-` (https://support.google.com/youtube/answer/11585688). */
const handlePattern = /^@[\p{L}\p{N}._-]{3,100}$/u;
/** A handle sent without its `@`; without dots, so a bare host name is not taken for one. */
const bareHandlePattern = /^[\p{L}\p{N}_-]{3,100}$/u;
/** A playlist id: a known two-letter prefix (PL, UU, LL, OL, FL, RD, ...) then base64url characters. */
const playlistIdPattern = /^[A-Z]{2}[A-Za-z0-9_-]{8,}$|^(LL|WL|LM)$/;

const youtubeHosts = new Set(["youtube.com", "www.youtube.com", "m.youtube.com", "music.youtube.com"]);
/** A video shared from a playlist keeps the `list` parameter: `youtu.be/<id>?list=PL...`. */
const playlistHosts = new Set([...youtubeHosts, "youtu.be"]);

/** Reads an `@handle`, a bare `UC...` id or a channel address (`/channel/UC...`, `/@handle`, `/c/name`, `/user/name`, any tab after it). */
export function parseChannelReference(input: string): ChannelReference {
  const value = input.trim();
  if (channelIdPattern.test(value)) return { kind: "id", channelId: value };
  if (handlePattern.test(value)) return { kind: "vanity", url: vanityUrl(value) };
  if (bareHandlePattern.test(value)) return { kind: "vanity", url: vanityUrl(`@${value}`) };
  const url = parseYoutubeAddress(value, youtubeHosts);
  if (!url) return foreignReference(value);
  const [first, second] = url.pathname.split("/").filter((part) => part.length > 0);
  if (first === "channel" && second && channelIdPattern.test(second)) return { kind: "id", channelId: second };
  if (first?.startsWith("@") && handlePattern.test(first)) return { kind: "vanity", url: vanityUrl(first) };
  if ((first === "c" || first === "user") && second) return { kind: "vanity", url: vanityUrl(`${first}/${second}`) };
  return foreignReference(value);
}

/** Reads a playlist id, bare or from the `list` parameter of a watch, share or playlist address. */
export function parsePlaylistReference(input: string): PlaylistReference {
  const value = input.trim();
  if (playlistIdPattern.test(value)) return { kind: "id", playlistId: value };
  const list = parseYoutubeAddress(value, playlistHosts)?.searchParams.get("list");
  return list && playlistIdPattern.test(list) ? { kind: "id", playlistId: list } : foreignReference(value);
}

/** The address `resolve_url` knows the channel by; tab suffixes and parameters are dropped. */
function vanityUrl(path: string): string {
  return `https://www.youtube.com/${path}`;
}

/**
 * What an input that is no reference to the list names instead. A bare 11-character id is not
 * taken for a video, since it may as well be a handle sent without its `@`; another site counts
 * only with its scheme, since `Mr.Beast` would otherwise pass for a host name.
 */
function foreignReference(value: string): ForeignReference {
  const reference = parseVideoReference(value);
  if (reference.kind === "youtube" && !isVideoId(value)) return { kind: "video" };
  if (reference.kind === "other-url" && /^https?:\/\//i.test(value)) return { kind: "other-site" };
  return { kind: "malformed" };
}

function parseYoutubeAddress(value: string, hosts: ReadonlySet<string>): URL | null {
  if (/\s/.test(value)) return null;
  const withScheme = /^https?:\/\//i.test(value) ? value : `https://${value}`;
  try {
    const url = new URL(withScheme);
    return hosts.has(url.hostname.toLowerCase()) ? url : null;
  } catch {
    return null;
  }
}
