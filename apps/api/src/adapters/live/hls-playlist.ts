/**
 * HLS playlists (RFC 8216) as a live reader needs them: a media playlist's segments with their
 * sequence numbers and durations, whether it has ended, and a master playlist's renditions. The
 * text is a stranger's: its size, its numbers and its addresses are all bounded or checked here.
 */

/** The largest playlist read, in characters: a live window is a few kilobytes. */
export const maxPlaylistChars = 1024 * 1024;

/** Segments one media playlist may list; a live window holds a handful. */
const maxSegments = 20_000;

/** The longest duration a segment or target may declare, in seconds. */
const maxSegmentSeconds = 600;

/** A playlist that cannot be read as HLS, and why. */
export class PlaylistError extends Error {
  override readonly name = "PlaylistError";
}

/** One media segment. */
export interface PlaylistSegment {
  /** Its media sequence number. */
  sequence: number;
  /** Its absolute http(s) address. */
  uri: string;
  /** Seconds, as `#EXTINF` declares them. */
  duration: number;
  /** `#EXT-X-DISCONTINUITY` comes before it: its timestamps and encoding may start afresh. */
  discontinuity: boolean;
}

/** A media playlist: the window of segments a live stream lists now. */
export interface MediaPlaylist {
  kind: "media";
  /** `#EXT-X-TARGETDURATION`: the longest segment, and how often the playlist changes. */
  targetDuration: number;
  segments: PlaylistSegment[];
  /** `#EXT-X-ENDLIST`: no segment will be added. */
  ended: boolean;
  /** `#EXT-X-MAP`: the initialisation section fragmented MP4 segments need before them. */
  initSection: string | null;
}

/** A rendition a master playlist offers. */
export interface PlaylistVariant {
  uri: string;
  /** Bits per second, as `BANDWIDTH` declares them; 0 when absent. */
  bandwidth: number;
  /** Whether `CODECS` names audio only, or the rendition is an `#EXT-X-MEDIA` of `TYPE=AUDIO`. */
  audioOnly: boolean;
}

/** A master playlist: the renditions of one stream. */
export interface MasterPlaylist {
  kind: "master";
  variants: PlaylistVariant[];
}

/** Parses a playlist; addresses are resolved against `baseUrl`, the playlist's own. */
export function parsePlaylist(text: string, baseUrl: string): MediaPlaylist | MasterPlaylist {
  if (text.length > maxPlaylistChars)
    throw new PlaylistError(`The playlist is larger than ${maxPlaylistChars} characters.`);
  const lines = text
    .replace(/^\uFEFF/, "")
    .split(/\r?\n/)
    .map((line) => line.trim());
  if (lines[0] !== "#EXTM3U") throw new PlaylistError("The answer is not an HLS playlist (no #EXTM3U).");
  if (lines.some((line) => line.startsWith("#EXT-X-STREAM-INF") || line.startsWith("#EXT-X-MEDIA:"))) {
    return parseMaster(lines, baseUrl);
  }
  return parseMedia(lines, baseUrl);
}

function parseMedia(lines: string[], baseUrl: string): MediaPlaylist {
  let targetDuration: number | null = null;
  let sequence = 0;
  let pendingDuration: number | null = null;
  let discontinuity = false;
  let initSection: string | null = null;
  let ended = false;
  const segments: PlaylistSegment[] = [];
  for (const line of lines.slice(1)) {
    if (line === "") continue;
    if (line.startsWith("#")) {
      const [tag = "", value = ""] = splitTag(line);
      switch (tag) {
        case "#EXT-X-TARGETDURATION":
          targetDuration = boundedNumber(value, "#EXT-X-TARGETDURATION", maxSegmentSeconds);
          break;
        case "#EXT-X-MEDIA-SEQUENCE":
          sequence = wholeNumber(value, "#EXT-X-MEDIA-SEQUENCE");
          break;
        case "#EXTINF":
          pendingDuration = boundedNumber(value.split(",")[0] ?? "", "#EXTINF", maxSegmentSeconds);
          break;
        case "#EXT-X-DISCONTINUITY":
          discontinuity = true;
          break;
        case "#EXT-X-ENDLIST":
          ended = true;
          break;
        case "#EXT-X-MAP":
          initSection = address(attributes(value).URI ?? "", baseUrl);
          break;
        case "#EXT-X-KEY": {
          const method = attributes(value).METHOD ?? "NONE";
          if (method !== "NONE") throw new PlaylistError(`The stream is encrypted (#EXT-X-KEY METHOD=${method}).`);
          break;
        }
        case "#EXT-X-BYTERANGE":
          throw new PlaylistError(
            "The playlist cuts its segments out of larger files (#EXT-X-BYTERANGE), which live reading does not follow.",
          );
        default:
          break;
      }
      continue;
    }
    if (pendingDuration === null) throw new PlaylistError(`The segment ${line.slice(0, 200)} has no #EXTINF.`);
    if (segments.length >= maxSegments)
      throw new PlaylistError(`The playlist lists more than ${maxSegments} segments.`);
    segments.push({ sequence, uri: address(line, baseUrl), duration: pendingDuration, discontinuity });
    sequence += 1;
    pendingDuration = null;
    discontinuity = false;
  }
  if (targetDuration === null) throw new PlaylistError("The playlist has no #EXT-X-TARGETDURATION.");
  return { kind: "media", targetDuration, segments, ended, initSection };
}

function parseMaster(lines: string[], baseUrl: string): MasterPlaylist {
  const variants: PlaylistVariant[] = [];
  let pending: Record<string, string> | null = null;
  for (const line of lines.slice(1)) {
    if (line === "") continue;
    if (line.startsWith("#")) {
      const [tag = "", value = ""] = splitTag(line);
      if (tag === "#EXT-X-STREAM-INF") pending = attributes(value);
      if (tag === "#EXT-X-MEDIA") {
        const media = attributes(value);
        if (media.TYPE === "AUDIO" && media.URI) {
          variants.push({ uri: address(media.URI, baseUrl), bandwidth: 0, audioOnly: true });
        }
      }
      continue;
    }
    if (!pending) continue;
    const codecs = (pending.CODECS ?? "").split(",").map((codec) => codec.trim().toLowerCase());
    variants.push({
      uri: address(line, baseUrl),
      bandwidth: Math.max(0, Number(pending.BANDWIDTH) || 0),
      audioOnly: codecs.length > 0 && codecs.every((codec) => /^(mp4a|ac-3|ec-3|opus|flac|mp3)/.test(codec)),
    });
    pending = null;
    if (variants.length > maxSegments)
      throw new PlaylistError(`The playlist lists more than ${maxSegments} renditions.`);
  }
  if (variants.length === 0) throw new PlaylistError("The master playlist offers no rendition.");
  return { kind: "master", variants };
}

/**
 * The rendition to read for speech: the smallest audio-only one, else the smallest of all (its
 * picture is decoded away). Bandwidth 0 (undeclared) sorts last among its kind.
 */
export function audioRendition(master: MasterPlaylist): string {
  const bySize = (a: PlaylistVariant, b: PlaylistVariant) =>
    (a.bandwidth || Number.MAX_SAFE_INTEGER) - (b.bandwidth || Number.MAX_SAFE_INTEGER);
  const audio = master.variants.filter((variant) => variant.audioOnly).sort(bySize);
  const chosen = audio[0] ?? [...master.variants].sort(bySize)[0];
  if (!chosen) throw new PlaylistError("The master playlist offers no rendition.");
  return chosen.uri;
}

function splitTag(line: string): [string, string] {
  const colon = line.indexOf(":");
  return colon === -1 ? [line, ""] : [line.slice(0, colon), line.slice(colon + 1)];
}

/** `KEY=value,KEY="quoted, value"` attribute lists. */
function attributes(text: string): Record<string, string> {
  const found: Record<string, string> = {};
  for (const match of text.matchAll(/([A-Z0-9-]+)=("([^"]*)"|[^,]*)/g)) {
    const [, key = "", raw = "", quoted] = match;
    found[key] = quoted ?? raw;
  }
  return found;
}

function boundedNumber(text: string, tag: string, max: number): number {
  const value = Number(text.trim());
  if (!Number.isFinite(value) || value < 0 || value > max)
    throw new PlaylistError(`${tag} is not a duration: ${text.slice(0, 40)}.`);
  return value;
}

function wholeNumber(text: string, tag: string): number {
  const value = Number(text.trim());
  if (!Number.isSafeInteger(value) || value < 0)
    throw new PlaylistError(`${tag} is not a whole number: ${text.slice(0, 40)}.`);
  return value;
}

/** An address the playlist names, absolute; only http(s): a playlist must not lead a reader to a file or elsewhere. */
function address(reference: string, baseUrl: string): string {
  const url = URL.parse(reference, baseUrl);
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) {
    throw new PlaylistError(`The playlist names ${reference.slice(0, 200)}, which is not an http(s) address.`);
  }
  return url.href;
}
