import type { Schema } from "@verbatim/contract";
import type { FeedEpisode, ParsedFeed } from "../../adapters/audio-sources/feeds.ts";
import { hasMediaExtension } from "../../adapters/audio-sources/media-addresses.ts";
import { mediaVideoId } from "../../adapters/audio-sources/web-audio-sources.ts";
import type {
  Listing,
  ListingCallOptions,
  ListingMarker,
  ListingPage,
  ListingRequest,
  ListingSource,
} from "../listing-source.ts";
import { SourceError } from "../source-error.ts";
import type { FeedDocuments } from "./feed-documents.ts";

/**
 * Any RSS or Atom feed, or a podcast page that links to one, as a list of its episodes, newest
 * first. It claims every http(s) address the sources before it in the registry left, so it comes
 * last. A feed is one document, so its list is one upstream page, read again for each page a
 * client asks for; each row's `url` is the episode's audio file, which `POST /transcripts/video`
 * transcribes as the same item (`videoId` is the id that transcript carries).
 */
export class FeedListings implements ListingSource {
  readonly accepts = { channel: "an RSS or Atom feed URL, or the URL of a podcast page that links to one" };
  readonly searchPlatforms = [];

  constructor(private readonly documents: FeedDocuments) {}

  match(request: ListingRequest): Listing | SourceError | null {
    if (request.kind !== "channel") return null;
    const address = httpAddress(request.channel);
    if (!address) return null;
    if (address.username || address.password) {
      return new SourceError(
        "invalid_input",
        "The address carries a user name or password; such addresses are not fetched.",
      );
    }
    if (hasMediaExtension(address)) {
      return new SourceError(
        "item_not_list",
        `${address.href} is a media file, not a feed; the video endpoint transcribes it.`,
      );
    }
    return new FeedListing(this.documents, async () => address, {
      platform: "rss",
      label: `the feed ${address.href}`,
      identity: { kind: "feed", url: address.href },
    });
  }
}

/** Where a listed feed is, found at each read: a show found through a directory may move its feed. */
export type FeedAddress = (signal?: AbortSignal) => Promise<URL>;

/** One feed's episodes, whichever link named the feed. */
export class FeedListing implements Listing {
  readonly monitorPlatform = "podcast";
  readonly options = [];
  readonly platform: "rss" | "apple" | "spotify";
  readonly label: string;
  readonly identity: Record<string, unknown>;

  constructor(
    private readonly documents: FeedDocuments,
    private readonly feedAddress: FeedAddress,
    named: Pick<FeedListing, "platform" | "label" | "identity">,
  ) {
    this.platform = named.platform;
    this.label = named.label;
    this.identity = named.identity;
  }

  markerOf(sinceVideoId: string): ListingMarker {
    return feedEpisodeMarker(sinceVideoId);
  }

  async firstPage(options: ListingCallOptions = {}): Promise<ListingPage> {
    const { feed } = await this.documents.feedAt(await this.feedAddress(options.signal), options.signal);
    return { rows: episodeRows(feed), continuation: null };
  }

  nextPage(continuation: string): Promise<ListingPage> {
    // A feed's list is one page, so no continuation was ever issued for it.
    return Promise.reject(new Error(`a feed's list has no page after its first (continuation ${continuation})`));
  }
}

/** The episode `since_video_id` names among rows whose `url` is the episode's audio file: a row's `videoId` or `url`. */
export function feedEpisodeMarker(sinceVideoId: string): ListingMarker {
  const value = sinceVideoId.trim();
  if (/^(?:pod|file)_[0-9a-f]{16}$/.test(value)) return { itemId: value };
  const url = httpAddress(value);
  if (url) return { itemId: mediaVideoId(url) };
  return {
    problem: "since_video_id must name an episode of the feed.",
    issue: `"${sinceVideoId}" is neither a row's videoId nor a row's url`,
  };
}

/** A feed's episodes as rows: the dated ones newest first, then the undated ones in the feed's order. */
export function episodeRows(feed: ParsedFeed): Schema<"VideoRow">[] {
  return newestFirst(feed.episodes).map((episode) => episodeRow(feed, episode));
}

/** Dated episodes newest first, then the undated ones in the feed's order. */
function newestFirst(episodes: readonly FeedEpisode[]): FeedEpisode[] {
  const dated = episodes.filter((episode) => episode.publishedAt !== null);
  const undated = episodes.filter((episode) => episode.publishedAt === null);
  dated.sort((a, b) => (b.publishedAt?.getTime() ?? 0) - (a.publishedAt?.getTime() ?? 0));
  return [...dated, ...undated];
}

function episodeRow(feed: ParsedFeed, episode: FeedEpisode): Schema<"VideoRow"> {
  const url = new URL(episode.enclosureUrl);
  return {
    videoId: mediaVideoId(url),
    url: url.href,
    title: episode.title ?? fileNameOf(url),
    duration: episode.durationSeconds,
    channel: feed.title,
    publishedAt: episode.publishedAt?.toISOString() ?? null,
    stats: null,
    thumbnailUrl: episode.imageUrl ?? feed.imageUrl,
  };
}

/** The last segment of an address's path, as people read it: the title of an episode that has none. */
function fileNameOf(url: URL): string {
  const segment = url.pathname.split("/").at(-1) ?? "";
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** An http(s) URL written with its scheme; null for anything else. */
function httpAddress(input: string): URL | null {
  const value = input.trim();
  if (!/^https?:\/\//i.test(value) || /\s/.test(value)) return null;
  try {
    return new URL(value);
  } catch {
    return null;
  }
}
