/** File extensions of the media formats we transcribe. */
const mediaExtensions = new Set([
  "mp3",
  "m4a",
  "aac",
  "wav",
  "ogg",
  "oga",
  "opus",
  "flac",
  "mp4",
  "m4v",
  "webm",
  "mov",
]);

/** Content-Types of media that are neither `audio/*` nor `video/*`. */
const otherMediaTypes = new Set(["application/ogg"]);

/** Playlists of streamed segments (HLS, DASH) are media types, but not one file we can download. */
const streamingPlaylistTypes = new Set([
  "application/x-mpegurl",
  "application/vnd.apple.mpegurl",
  "audio/mpegurl",
  "audio/x-mpegurl",
  "application/dash+xml",
]);

/**
 * Hosts (and their subdomains) that serve podcast enclosures, trackers included: an address on
 * one of them is an episode given directly (`resolved_via: "direct"`), not just a file.
 */
const podcastMediaHosts = [
  "acast.com",
  "anchor.fm",
  "art19.com",
  "audioboom.com",
  "blubrry.com",
  "buzzsprout.com",
  "captivate.fm",
  "chrt.fm",
  "fireside.fm",
  "libsyn.com",
  "megaphone.fm",
  "nashownotes.com",
  "omny.fm",
  "op3.dev",
  "pdst.fm",
  "podbean.com",
  "podigee.io",
  "podtrac.com",
  "pscrb.fm",
  "redcircle.com",
  "simplecast.com",
  "soundcloud.com",
  "spreaker.com",
  "transistor.fm",
  "audio.thisamericanlife.org",
];

/** Video and audio sites whose pages we cannot transcribe: answered `unsupported_platform` without fetching. */
const unsupportedSites = [
  "vimeo.com",
  "tiktok.com",
  "twitch.tv",
  "dailymotion.com",
  "instagram.com",
  "facebook.com",
  "x.com",
  "twitter.com",
  "open.spotify.com",
  "music.apple.com",
  "bilibili.com",
  "rumble.com",
];

/** Whether the address names a media file by its extension (`…/episode.mp3?token=…`). */
export function hasMediaExtension(url: URL): boolean {
  const extension = /\.([a-z0-9]{2,5})$/i.exec(url.pathname)?.[1]?.toLowerCase();
  return extension !== undefined && mediaExtensions.has(extension);
}

/** Whether a Content-Type is a media file we can download and decode. */
export function isMediaContentType(contentType: string | null): boolean {
  const type = mimeTypeOf(contentType);
  if (type === null || streamingPlaylistTypes.has(type)) return false;
  return type.startsWith("audio/") || type.startsWith("video/") || otherMediaTypes.has(type);
}

/** Whether the address is on a podcast host or tracker. */
export function isPodcastMediaHost(url: URL): boolean {
  return hostMatches(url, podcastMediaHosts);
}

/** The site's name when it is one we do not support, else null. */
export function unsupportedSiteOf(url: URL): string | null {
  return unsupportedSites.find((site) => hostMatches(url, [site])) ?? null;
}

/** The MIME type of a Content-Type header, lowercased, without parameters. */
export function mimeTypeOf(contentType: string | null): string | null {
  const type = contentType?.split(";")[0]?.trim().toLowerCase();
  return type ? type : null;
}

function hostMatches(url: URL, domains: readonly string[]): boolean {
  const host = url.hostname.toLowerCase();
  return domains.some((domain) => host === domain || host.endsWith(`.${domain}`));
}
