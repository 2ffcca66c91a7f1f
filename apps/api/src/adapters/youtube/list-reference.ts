/** What a `channel` input names. */
export type ChannelReference =
  /** A `UC...` id, bare or from a `/channel/UC...` address: browsable as is. */
  | { kind: "id"; channelId: string }
  /** A handle or a vanity address; YouTube's `navigation/resolve_url` turns this URL into the id. */
  | { kind: "vanity"; url: string }
  /** Not a channel reference at all. */
  | { kind: "malformed" };

const channelIdPattern = /^UC[A-Za-z0-9_-]{22}$/;
/** YouTube handles: `@` and 3 to 30 letters, digits, `.`, `_` and `-` (https://support.google.com/youtube/answer/11585688). */
const handlePattern = /^@[\p{L}\p{N}._-]{3,100}$/u;
/** A handle sent without its `@`; without dots, so a bare host name is not taken for one. */
const bareHandlePattern = /^[\p{L}\p{N}_-]{3,100}$/u;
/** A playlist id: a known two-letter prefix (PL, UU, LL, OL, FL, RD, ...) then base64url characters. */
const playlistIdPattern = /^[A-Z]{2}[A-Za-z0-9_-]{8,}$|^(LL|WL|LM)$/;

const youtubeHosts = new Set(["youtube.com", "www.youtube.com", "m.youtube.com", "music.youtube.com"]);

/** Reads an `@handle`, a bare `UC...` id or a channel address (`/channel/UC...`, `/@handle`, `/c/name`, `/user/name`, any tab after it). */
export function parseChannelReference(input: string): ChannelReference {
  const value = input.trim();
  if (channelIdPattern.test(value)) return { kind: "id", channelId: value };
  if (handlePattern.test(value)) return { kind: "vanity", url: vanityUrl(value) };
  if (bareHandlePattern.test(value)) return { kind: "vanity", url: vanityUrl(`@${value}`) };
  const url = parseYoutubeAddress(value);
  if (!url) return { kind: "malformed" };
  const [first, second] = url.pathname.split("/").filter((part) => part.length > 0);
  if (first === "channel" && second && channelIdPattern.test(second)) return { kind: "id", channelId: second };
  if (first?.startsWith("@") && handlePattern.test(first)) return { kind: "vanity", url: vanityUrl(first) };
  if ((first === "c" || first === "user") && second) return { kind: "vanity", url: vanityUrl(`${first}/${second}`) };
  return { kind: "malformed" };
}

/** Reads a playlist id, bare or from the `list` parameter of a watch or playlist address; null when there is none. */
export function parsePlaylistId(input: string): string | null {
  const value = input.trim();
  if (playlistIdPattern.test(value)) return value;
  const list = parseYoutubeAddress(value)?.searchParams.get("list");
  return list && playlistIdPattern.test(list) ? list : null;
}

/** The address `resolve_url` knows the channel by; tab suffixes and parameters are dropped. */
function vanityUrl(path: string): string {
  return `https://www.youtube.com/${path}`;
}

function parseYoutubeAddress(value: string): URL | null {
  if (/\s/.test(value)) return null;
  const withScheme = /^https?:\/\//i.test(value) ? value : `https://${value}`;
  try {
    const url = new URL(withScheme);
    return youtubeHosts.has(url.hostname.toLowerCase()) ? url : null;
  } catch {
    return null;
  }
}
