/** How a platform's page opens at a moment, if it can. */
type MomentLink =
  /** `?t=<seconds>s` (Twitch spells hours and minutes, but takes seconds too). */
  | "t-seconds"
  /** `?start=<seconds>`. */
  | "start"
  /** `#t=<seconds>s`. */
  | "fragment-t"
  /** The page has no way to open at a moment: the plain link. */
  | "none";

/** How a platform's profiles are listed through yt-dlp's profile extractor. */
export interface PlatformProfiles {
  /** The extractor key (`ie_key()`) of its profile extractor. */
  extractor: string;
  /** The path of a profile's address (`/@user`); the address's host is one of the platform's. */
  path: RegExp;
  /** A profile's address as people write it, for messages. */
  example: string;
  /** The item id in a row's URL, for `since_video_id` given as a URL. */
  itemIdInUrl: RegExp;
  /**
   * The platform shows profiles only to signed-in accounts: a profile yt-dlp finds no list on is
   * then that sign-in wall, and the client is told a login is needed.
   */
  signedInOnly?: boolean;
}

/** A video platform read through yt-dlp: the wire's name, its extractors and the hosts its links live on. */
export interface YtdlpPlatform {
  /** The wire's `platform`. */
  platform: string;
  /** How people call it, in messages. */
  label: string;
  /** The yt-dlp extractor keys (`ie_key()`) that read it. */
  extractors: readonly string[];
  /** The hosts of its links, subdomains included. */
  hosts: readonly string[];
  /**
   * The info dict fields holding the id people know the item by, best first: X's is the post's
   * (yt-dlp's `id` is its video's), a Twitch clip's its slug.
   */
  itemIdFields: readonly string[];
  /** The info dict fields naming the creator as the platform does, best first. */
  channelFields: readonly string[];
  momentLink: MomentLink;
  /**
   * What the item's `subtitles` are: the creator's (`manual`), or the platform's own speech
   * recognition and translation, which yt-dlp lists as subtitles all the same (`auto`).
   */
  subtitlesKind: "manual" | "auto";
  /** Its profiles, where yt-dlp lists them: a channel of `POST /transcripts/channel` and monitors. */
  profiles?: PlatformProfiles;
}

/**
 * The platforms Verbatim reads through yt-dlp, with what the default allow-list admits. The
 * creator fields follow each extractor: TikTok's `uploader` is the @handle, Instagram's
 * `channel` the username, X's `uploader_id` the screen name.
 */
export const ytdlpPlatforms: readonly YtdlpPlatform[] = [
  {
    platform: "tiktok",
    label: "TikTok",
    extractors: ["TikTok", "TikTokVM"],
    hosts: ["tiktok.com", "tiktokv.com"],
    itemIdFields: ["id"],
    channelFields: ["uploader", "channel"],
    momentLink: "none",
    subtitlesKind: "auto",
    // TikTokUserIE's _VALID_URL: a handle of letters, digits, `_`, `.` and `-`, nothing after it.
    profiles: {
      extractor: "TikTokUser",
      path: /^\/@[\w.-]+\/?$/,
      example: "https://www.tiktok.com/@user",
      itemIdInUrl: /\/video\/(\d+)/,
    },
  },
  {
    platform: "instagram",
    label: "Instagram",
    extractors: ["Instagram"],
    hosts: ["instagram.com", "instagr.am"],
    itemIdFields: ["id"],
    channelFields: ["channel", "uploader"],
    momentLink: "none",
    subtitlesKind: "manual",
    // InstagramUserIE's _VALID_URL, less the paths of posts, reels, stories and Instagram's own pages.
    profiles: {
      extractor: "InstagramUser",
      path: /^\/(?!(?:p|reels?|tv|stories|explore|accounts|direct|about|developer|legal)\/?$)[\w.]{2,30}\/?$/,
      example: "https://www.instagram.com/user/",
      itemIdInUrl: /\/(?:p|reels?|tv)\/([\w-]+)/,
      signedInOnly: true,
    },
  },
  {
    platform: "x",
    label: "X",
    extractors: ["Twitter"],
    hosts: ["x.com", "twitter.com"],
    itemIdFields: ["display_id", "id"],
    channelFields: ["uploader_id", "uploader"],
    momentLink: "none",
    subtitlesKind: "manual",
  },
  {
    platform: "vimeo",
    label: "Vimeo",
    extractors: ["Vimeo"],
    hosts: ["vimeo.com"],
    itemIdFields: ["id"],
    channelFields: ["uploader", "channel"],
    momentLink: "fragment-t",
    subtitlesKind: "manual",
  },
  {
    platform: "facebook",
    label: "Facebook",
    extractors: ["Facebook", "FacebookReel"],
    hosts: ["facebook.com", "fb.watch"],
    itemIdFields: ["id"],
    channelFields: ["uploader", "channel"],
    momentLink: "none",
    subtitlesKind: "manual",
  },
  {
    platform: "dailymotion",
    label: "Dailymotion",
    extractors: ["Dailymotion"],
    hosts: ["dailymotion.com", "dai.ly"],
    itemIdFields: ["id"],
    channelFields: ["uploader", "channel"],
    momentLink: "start",
    subtitlesKind: "manual",
  },
  {
    platform: "twitch",
    label: "Twitch",
    extractors: ["TwitchVod", "TwitchClips"],
    hosts: ["twitch.tv"],
    itemIdFields: ["display_id", "id"],
    channelFields: ["uploader", "channel"],
    momentLink: "t-seconds",
    subtitlesKind: "manual",
  },
  {
    platform: "loom",
    label: "Loom",
    extractors: ["Loom"],
    hosts: ["loom.com"],
    itemIdFields: ["id"],
    channelFields: ["uploader", "channel"],
    momentLink: "t-seconds",
    subtitlesKind: "auto",
  },
];

/** The platform whose hosts an address is on; null when none of them. */
export function platformOfAddress(url: URL): YtdlpPlatform | null {
  const host = url.hostname.toLowerCase().replace(/\.$/, "");
  return (
    ytdlpPlatforms.find((entry) => entry.hosts.some((domain) => host === domain || host.endsWith(`.${domain}`))) ?? null
  );
}

/** The platform of a yt-dlp extractor: ours when we know it, else the extractor's name in lower case. */
export function platformOfExtractor(extractorKey: string): YtdlpPlatform | null {
  return ytdlpPlatforms.find((entry) => entry.extractors.includes(extractorKey)) ?? null;
}

/** An address that opens the item `seconds` in, as its platform allows. */
export function momentLinkOf(url: string, momentLink: MomentLink, seconds: number): string {
  const whole = Math.max(0, Math.floor(seconds));
  if (momentLink === "none") return url;
  const link = new URL(url);
  if (momentLink === "fragment-t") {
    link.hash = `t=${whole}s`;
    return link.toString();
  }
  if (momentLink === "start") link.searchParams.set("start", String(whole));
  else link.searchParams.set("t", `${whole}s`);
  return link.toString();
}

/** The extractor keys that list profiles: yt-dlp runs them for lists only, never for an item. */
export const profileExtractors: ReadonlySet<string> = new Set(
  ytdlpPlatforms.flatMap((entry) => (entry.profiles ? [entry.profiles.extractor] : [])),
);
