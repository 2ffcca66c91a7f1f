import type {
  Listing,
  ListingCallOptions,
  ListingMarker,
  ListingPage,
  ListingRequest,
  ListingSource,
  ListPlatform,
  MonitorPlatform,
} from "../listing-source.ts";
import { SourceError } from "../source-error.ts";
import { type EgressCalls, guardedCall } from "./guarded-call.ts";
import { entriesPerPage, profilePage } from "./profile-entries.ts";
import { type PlatformProfiles, platformOfAddress, type YtdlpPlatform, ytdlpPlatforms } from "./ytdlp-platforms.ts";
import type { YtdlpCallOptions, YtdlpEntries } from "./ytdlp-sidecar.ts";

/** What the profile source asks of yt-dlp. */
export interface YtdlpListCalls {
  listEntries(url: string, options: YtdlpCallOptions & { start: number; count: number }): Promise<YtdlpEntries>;
}

export interface YtdlpProfilesOptions {
  /** yt-dlp; null when it is not installed, and then profiles are refused with `absentAdvice`. */
  engine: YtdlpListCalls | null;
  /** How an operator enables yt-dlp, said to clients when it is absent. */
  absentAdvice: string;
  egress: EgressCalls;
  /** The yt-dlp extractors allowed (`VERBATIM_YTDLP_EXTRACTORS`). */
  allowedExtractors: readonly string[];
  /** Milliseconds to read one page of a profile; default 60 s. */
  deadlineMs?: number;
}

/** Bytes one listing call may read through the guard: the profile page and the API pages behind it. */
const listingMaxBytes = 50 * 1024 * 1024;

/**
 * Profiles of the platforms yt-dlp lists (`ytdlpPlatforms[].profiles`: TikTok, Instagram) as
 * lists of their posts, newest first, read by the platform's profile extractor through the
 * egress guard. Each row's `url` is the post's, which the item source reads as the same item.
 * It claims every address on those platforms' hosts, and refuses the ones that are no profile.
 */
export class YtdlpProfiles implements ListingSource {
  readonly accepts: { channel: string };
  readonly searchPlatforms = [];

  constructor(private readonly options: YtdlpProfilesOptions) {
    const examples = ytdlpPlatforms.flatMap((entry) => (entry.profiles ? [entry.profiles.example] : []));
    this.accepts = { channel: `a profile URL (${examples.join(", ")})` };
  }

  match(request: ListingRequest): Listing | SourceError | null {
    if (request.kind === "search") {
      const platform = ytdlpPlatforms.find((entry) => entry.profiles && entry.platform === request.platform);
      return platform
        ? new SourceError(
            "unsupported",
            `${platform.label} has no public search to read. Search YouTube, or list a ${platform.label} profile with POST /transcripts/channel.`,
          )
        : null;
    }
    if (request.kind !== "channel") return null;
    const address = addressOf(request.channel);
    const platform = address ? platformOfAddress(address) : null;
    if (!address || !platform) return null;
    if (address.username || address.password) {
      return new SourceError(
        "invalid_input",
        "The address carries a user name or password; such addresses are not fetched.",
      );
    }
    const { profiles } = platform;
    if (!profiles?.path.test(address.pathname)) {
      const example = profiles ? ` (a profile is ${profiles.example})` : "";
      return new SourceError(
        "item_not_list",
        `"${request.channel}" is no ${platform.label} profile this server lists${example}; the video endpoint reads ${platform.label} items.`,
      );
    }
    if (!this.options.allowedExtractors.includes(profiles.extractor)) {
      return new SourceError(
        "unsupported",
        `This server does not list ${platform.label} profiles: its operator left ${profiles.extractor} out of VERBATIM_YTDLP_EXTRACTORS.`,
      );
    }
    if (!this.options.engine) {
      return new SourceError(
        "unsupported",
        `${platform.label} profiles need yt-dlp, which this server does not have. ${this.options.absentAdvice}`,
      );
    }
    return new ProfileListing(this.options, this.options.engine, platform, profiles, address);
  }
}

/** One profile's posts, newest first, in pages of `entriesPerPage`. */
class ProfileListing implements Listing {
  readonly platform: ListPlatform;
  readonly monitorPlatform: MonitorPlatform;
  readonly options = [];
  readonly label: string;
  readonly identity: Record<string, unknown>;
  private readonly url: string;

  constructor(
    private readonly settings: YtdlpProfilesOptions,
    private readonly engine: YtdlpListCalls,
    private readonly source: YtdlpPlatform,
    private readonly profiles: PlatformProfiles,
    address: URL,
  ) {
    this.platform = source.platform as ListPlatform;
    this.monitorPlatform = source.platform as MonitorPlatform;
    this.url = `${address.origin}${address.pathname.replace(/\/+$/, "")}`;
    this.label = `the ${source.label} profile ${this.url}`;
    this.identity = { kind: "profile", url: this.url };
  }

  markerOf(sinceVideoId: string): ListingMarker {
    const value = sinceVideoId.trim();
    const inUrl = value.includes("/") ? this.profiles.itemIdInUrl.exec(value)?.[1] : value;
    if (inUrl && /^[\w-]{1,64}$/.test(inUrl)) return { itemId: inUrl };
    return {
      problem: `since_video_id must name a ${this.source.label} post of the profile.`,
      issue: `"${sinceVideoId}" is neither a row's videoId nor a row's url`,
    };
  }

  firstPage(options: ListingCallOptions = {}): Promise<ListingPage> {
    return this.page(0, options);
  }

  nextPage(continuation: string, options: ListingCallOptions = {}): Promise<ListingPage> {
    const start = Number(continuation);
    if (!Number.isSafeInteger(start) || start <= 0) throw new Error(`no profile page starts at ${continuation}`);
    return this.page(start, options);
  }

  /** Entries `start` on, one more than a page to learn whether another page follows. */
  private async page(start: number, options: ListingCallOptions): Promise<ListingPage> {
    const deadlineMs = this.settings.deadlineMs ?? 60_000;
    const listed = await guardedCall(
      this.settings.egress,
      { url: this.url, label: this.source.label },
      { maxBytes: listingMaxBytes, deadlineMs },
      this.settings.absentAdvice,
      (proxy) =>
        this.engine.listEntries(this.url, {
          proxy,
          deadlineMs,
          start,
          count: entriesPerPage + 1,
          ...(options.signal ? { signal: options.signal } : {}),
          ...(options.accountId === undefined ? {} : { account: options.accountId }),
        }),
    ).catch((error: unknown) => this.emptyOrFailure(error));
    return profilePage(this.source, listed, start);
  }

  /**
   * A profile without posts is an empty list, not a failure; on a platform that shows profiles
   * to signed-in accounts only, a profile yt-dlp finds no list on is that sign-in wall.
   */
  private emptyOrFailure(error: unknown): YtdlpEntries {
    if (!(error instanceof SourceError)) throw error;
    // TikTokUserIE's words for a profile whose page counts no videos.
    if (/does not have any videos posted/i.test(error.message)) return { entries: [] };
    if (this.profiles.signedInOnly && (error.kind === "unparseable" || error.kind === "login_required")) {
      throw new SourceError("login_required", `A login is needed to list ${this.url}.`, { cause: error });
    }
    throw error;
  }
}

/** An http(s) address, with or without its scheme (`tiktok.com/@user` is how people write it). */
function addressOf(input: string): URL | null {
  const value = input.trim();
  if (/\s/.test(value)) return null;
  const withScheme = /^https?:\/\//i.test(value)
    ? value
    : /^[a-z][a-z0-9+.-]*:/i.test(value)
      ? null
      : `https://${value}`;
  if (!withScheme) return null;
  try {
    const url = new URL(withScheme);
    return url.hostname.includes(".") ? url : null;
  } catch {
    return null;
  }
}
