import { createHash } from "node:crypto";
import type { Logger } from "../../logger.ts";
import { SourceError } from "../../sources/source-error.ts";
import { type DownloadOptions, MediaDownload, type MediaDownloadLimits, megabytes } from "../net/media-download.ts";
import { type PublicFetch, readBodyWithin, refuseCredentials, saveBodyWithin } from "../net/public-fetch.ts";
import type { IsolatedParser } from "../parsing/isolated-parser.ts";
import { parseVideoReference } from "../youtube/video-reference.ts";
import type {
  AudioSources,
  DownloadedMedia,
  EpisodeChapter,
  PodcastResolution,
  PublisherTranscript,
  ResolvedAudioSource,
} from "./audio-source.ts";
import { type EpisodePage, matchEpisodeOnPage } from "./episode-pages.ts";
import {
  type FeedEpisode,
  type FeedReader,
  feedFormatOf,
  findEpisode,
  newestEpisode,
  type ParsedFeed,
  transcriptFormatOf,
} from "./feeds.ts";
import {
  hasMediaExtension,
  isMediaContentType,
  isPodcastMediaHost,
  mimeTypeOf,
  unsupportedSiteOf,
} from "./media-addresses.ts";
import { decodeText } from "./text-decoding.ts";

/** The limits `WebAudioSources` works within; every field is set (the factory fills defaults). */
export interface WebAudioSourcesLimits extends MediaDownloadLimits {
  /** Bytes of one feed or page at most. */
  feedMaxBytes: number;
  /** Bytes of one publisher transcript at most. */
  transcriptMaxBytes: number;
  /** Milliseconds one page, feed or transcript may take, headers and body. */
  documentTimeoutMs: number;
  /** Feeds a page links to that are tried, at most. */
  maxFeedCandidates: number;
}

/** A fetched document: media (body left unread) or text. */
type FetchedDocument =
  | { kind: "media"; url: URL; contentType: string | null; bytes: number | null }
  | { kind: "text"; url: URL; contentType: string | null; text: string };

/** Why one feed a page links to could not be used: the `reason`s of `podcast_feed_not_found`, best first. */
const candidateFailures = ["episode_not_in_feed", "not_a_feed", "feed_unreadable"] as const;
type CandidateFailure = (typeof candidateFailures)[number];

const documentAccept =
  "application/rss+xml, application/atom+xml, application/xml;q=0.9, text/xml;q=0.9, text/html;q=0.8, */*;q=0.5";

/**
 * Podcasts, feeds and media files on the web, fetched through the public-address fetch.
 *
 * `videoId`s are stable hashes of addresses (the first 16 hex digits of SHA-256):
 * `pod_<hash(feed URL + "\n" + episode guid, else enclosure URL)>` for an episode found
 * through its feed, `pod_<hash(enclosure URL)>` for an enclosure given directly, and
 * `file_<hash(media URL)>` for any other media file.
 *
 * HTTP failures of the address the client gave: 404 and 410 are `invalid_input` (nothing is
 * published there, and retrying will not change it); other statuses are `upstream_error`.
 * A feed the page links to that fails is `podcast_feed_not_found` (`feed_unreadable`).
 */
export class WebAudioSources implements AudioSources, FeedReader {
  constructor(
    private readonly fetch: PublicFetch,
    private readonly limits: WebAudioSourcesLimits,
    private readonly logger: Logger,
    private readonly parser: IsolatedParser,
  ) {}

  async resolve(input: string, options: { episode?: string; signal?: AbortSignal } = {}): Promise<ResolvedAudioSource> {
    const address = addressOf(input);
    const site = unsupportedSiteOf(address);
    if (site) throw new SourceError("unsupported", `${site} is not a supported platform.`);
    const document = await this.fetchDocument(address, options.signal);
    if (document.kind === "media") return mediaSource(address, document.bytes);
    if (feedFormatOf(document.text) !== null) {
      const feed = await this.parser.parse(`The feed at ${address.href}`, "feed", document.text, document.url.href);
      if (!feed) {
        throw feedNotFound(`${address.href} is a feed that does not parse.`, "feed_unreadable", [address.href]);
      }
      return feedEpisodeSource(feed, address, this.chooseEpisode(feed, address, options.episode));
    }
    if (isHtml(document)) return this.resolvePage(address, document, options);
    throw new SourceError(
      "unsupported",
      `${address.href} answered ${mimeTypeOf(document.contentType) ?? "without a Content-Type"}: neither a podcast feed, an episode page nor a media file.`,
    );
  }

  async readFeed(feedUrl: string, options: { signal?: AbortSignal } = {}): Promise<ParsedFeed> {
    const url = new URL(feedUrl);
    const document = await this.fetchDocument(url, options.signal, (status) =>
      feedNotFound(`The feed ${url.href} answered HTTP ${status}: nothing is published there.`, "feed_unreadable", [
        url.href,
      ]),
    );
    if (document.kind !== "text" || feedFormatOf(document.text) === null) {
      throw feedNotFound(`${url.href} is no RSS or Atom feed.`, "not_a_feed", [url.href]);
    }
    const feed = await this.parser.parse(`The feed at ${url.href}`, "feed", document.text, document.url.href);
    if (!feed) throw feedNotFound(`${url.href} is a feed that does not parse.`, "feed_unreadable", [url.href]);
    return feed;
  }

  async publisherTranscript(
    source: ResolvedAudioSource,
    options: { signal?: AbortSignal } = {},
  ): Promise<PublisherTranscript | null> {
    for (const link of source.publisherTranscripts) {
      const url = new URL(link.url);
      try {
        const response = await this.fetch(url, {
          headers: { accept: `${link.type}, */*;q=0.5` },
          signal: withDeadline(options.signal, this.limits.documentTimeoutMs),
        });
        if (!response.ok) {
          await response.body?.cancel().catch(() => undefined);
          this.logger.warn({ url: link.url, status: response.status }, "publisher transcript unavailable");
          continue;
        }
        const bytes = await readBodyWithin(response, url, this.limits.transcriptMaxBytes, () =>
          tooLargeDocument(url, this.limits.transcriptMaxBytes, "transcript"),
        );
        const parsed = await this.parser.parse(
          `The transcript at ${link.url}`,
          "publisherTranscript",
          decodeText(bytes, response.headers.get("content-type")),
          { declaredFormat: transcriptFormatOf(link.type, link.url), durationSeconds: source.declaredDurationSeconds },
        );
        if ("failure" in parsed) {
          this.logger.warn({ url: link.url, reason: parsed.failure }, "publisher transcript does not parse");
          continue;
        }
        return {
          language: link.language ?? source.language,
          segments: parsed.segments,
          speakers: parsed.speakers,
          url: link.url,
          format: parsed.format,
        };
      } catch (error) {
        if (options.signal?.aborted) throw error;
        this.logger.warn({ url: link.url, err: error }, "publisher transcript could not be fetched");
      }
    }
    return null;
  }

  async chapters(source: ResolvedAudioSource, options: { signal?: AbortSignal } = {}): Promise<EpisodeChapter[]> {
    const address = source.notes?.chaptersUrl;
    if (!address) return [];
    const url = new URL(address);
    try {
      const response = await this.fetch(url, {
        headers: { accept: "application/json+chapters, application/json;q=0.9, */*;q=0.5" },
        signal: withDeadline(options.signal, this.limits.documentTimeoutMs),
      });
      if (!response.ok) {
        await response.body?.cancel().catch(() => undefined);
        this.logger.warn({ url: address, status: response.status }, "chapters file unavailable");
        return [];
      }
      const bytes = await readBodyWithin(response, url, chaptersMaxBytes, () =>
        tooLargeDocument(url, chaptersMaxBytes, "chapters file"),
      );
      return chaptersOfFile(JSON.parse(decodeText(bytes, response.headers.get("content-type"))));
    } catch (error) {
      if (options.signal?.aborted) throw error;
      this.logger.warn({ url: address, err: error }, "chapters file could not be read");
      return [];
    }
  }

  async isReachable(mediaUrl: string, options: { signal?: AbortSignal } = {}): Promise<boolean> {
    const url = new URL(mediaUrl);
    const ask = async (init: { method: string; headers: Record<string, string> }) => {
      const response = await this.fetch(url, {
        ...init,
        signal: withDeadline(options.signal, this.limits.documentTimeoutMs),
      });
      await response.body?.cancel().catch(() => undefined);
      return response.status;
    };
    try {
      const headStatus = await ask({ method: "HEAD", headers: { "accept-encoding": "identity" } });
      if (headStatus !== 405 && headStatus !== 501) return headStatus >= 200 && headStatus < 300;
      const rangeStatus = await ask({ method: "GET", headers: { range: "bytes=0-0", "accept-encoding": "identity" } });
      return rangeStatus >= 200 && rangeStatus < 300;
    } catch (error) {
      if (options.signal?.aborted) throw error;
      return false;
    }
  }

  async download(mediaUrl: string, destinationPath: string, options: DownloadOptions = {}): Promise<DownloadedMedia> {
    const url = new URL(mediaUrl);
    const download = new MediaDownload(`The media at ${url.href}`, this.limits, options);
    try {
      // identity: a compressed body would be inflated on arrival, far beyond what the wire carried.
      const response = await this.fetch(url, {
        headers: { accept: "audio/*, video/*, */*;q=0.5", "accept-encoding": "identity" },
        signal: download.signal,
      });
      if (!response.ok) {
        await response.body?.cancel().catch(() => undefined);
        throw new SourceError("failed", `${url.host} answered HTTP ${response.status} for the media ${url.href}.`);
      }
      const bytes = await saveBodyWithin(response, url, destinationPath, download);
      return { bytes, contentType: response.headers.get("content-type") };
    } catch (error) {
      throw download.failure(error);
    }
  }

  /** An HTML page: the feed it links to, and the episode in that feed it is about. */
  private async resolvePage(
    pageUrl: URL,
    document: Extract<FetchedDocument, { kind: "text" }>,
    options: { episode?: string; signal?: AbortSignal },
  ): Promise<ResolvedAudioSource> {
    const page = await this.parser.parse(
      `The page at ${pageUrl.href}`,
      "episodePage",
      document.text,
      document.url.href,
    );
    if (page.feedUrls.length === 0) {
      if (!page.looksLikePodcast) {
        throw new SourceError("unsupported", `${pageUrl.href} is a web page that is no podcast episode.`);
      }
      throw feedNotFound(
        `${pageUrl.href} looks like a podcast page but links to no RSS or Atom feed; send the feed's URL instead.`,
        "no_feed_link",
        [],
      );
    }
    const candidates = page.feedUrls.slice(0, this.limits.maxFeedCandidates);
    const failures: CandidateFailure[] = [];
    for (const candidate of candidates) {
      const outcome = await this.episodeFromCandidate(new URL(candidate), page, options);
      if (typeof outcome !== "string") {
        return feedEpisodeSource(outcome.feed, new URL(candidate), outcome.episode, {
          url: pageUrl.href,
          resolvedVia: "page",
        });
      }
      failures.push(outcome);
    }
    const reason = candidateFailures.find((failure) => failures.includes(failure)) ?? "feed_unreadable";
    const explanation: Record<CandidateFailure, string> = {
      episode_not_in_feed: "none of them lists this episode",
      not_a_feed: "none of them is an RSS or Atom feed",
      feed_unreadable: "none of them could be read",
    };
    throw feedNotFound(
      `${pageUrl.href} links to ${candidates.length === 1 ? "a feed" : `${candidates.length} feeds`}, but ${explanation[reason]}.`,
      reason,
      candidates,
    );
  }

  private async episodeFromCandidate(
    feedUrl: URL,
    page: EpisodePage,
    options: { episode?: string; signal?: AbortSignal },
  ): Promise<{ feed: ParsedFeed; episode: FeedEpisode } | CandidateFailure> {
    let document: FetchedDocument;
    try {
      document = await this.fetchDocument(feedUrl, options.signal);
    } catch (error) {
      if (options.signal?.aborted) throw error;
      this.logger.info({ feedUrl: feedUrl.href, err: error }, "feed linked from a page could not be read");
      return "feed_unreadable";
    }
    if (document.kind !== "text" || feedFormatOf(document.text) === null) return "not_a_feed";
    let feed: ParsedFeed | null;
    try {
      feed = await this.parser.parse(`The feed at ${feedUrl.href}`, "feed", document.text, document.url.href);
    } catch (error) {
      this.logger.info({ feedUrl: feedUrl.href, err: error }, "feed linked from a page could not be parsed");
      return "feed_unreadable";
    }
    if (!feed) return "feed_unreadable";
    if (options.episode !== undefined) return episodeOrFailure(feed, findEpisode(feed, options.episode));
    const match = matchEpisodeOnPage(feed, page);
    return episodeOrFailure(feed, match === "show" ? newestEpisode(feed) : match);
  }

  private chooseEpisode(feed: ParsedFeed, feedUrl: URL, wanted: string | undefined): FeedEpisode {
    if (feed.episodes.length === 0) {
      throw new SourceError(
        "unsupported",
        `${feedUrl.href} is a feed without audio or video enclosures, so no podcast.`,
      );
    }
    const episode = wanted === undefined ? newestEpisode(feed) : findEpisode(feed, wanted);
    if (!episode) {
      throw feedNotFound(
        `The feed ${feedUrl.href} has no episode whose guid or enclosure URL is ${JSON.stringify(wanted)}.`,
        "episode_not_in_feed",
        [feedUrl.href],
      );
    }
    return episode;
  }

  /**
   * GETs an address the client gave or a page linked to, within the document limits; media
   * bodies are left unread. A 404 or 410 is `absent`'s error, by default `invalid_input`.
   */
  private async fetchDocument(
    url: URL,
    signal: AbortSignal | undefined,
    absent: (status: number) => SourceError = (status) =>
      new SourceError("invalid_input", `${url.href} answered HTTP ${status}: nothing is published at this address.`),
  ): Promise<FetchedDocument> {
    const response = await this.fetch(url, {
      headers: { accept: documentAccept },
      signal: withDeadline(signal, this.limits.documentTimeoutMs),
    });
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      if (response.status === 404 || response.status === 410) throw absent(response.status);
      throw new SourceError("failed", `${url.host} answered HTTP ${response.status} for ${url.href}.`);
    }
    const contentType = response.headers.get("content-type");
    const finalUrl = new URL(response.url || url.href);
    if (isMediaContentType(contentType) || (hasMediaExtension(url) && !isTextType(contentType))) {
      await response.body?.cancel().catch(() => undefined);
      const length = Number(response.headers.get("content-length") ?? Number.NaN);
      return { kind: "media", url: finalUrl, contentType, bytes: Number.isSafeInteger(length) ? length : null };
    }
    const bytes = await readBodyWithin(response, url, this.limits.feedMaxBytes, () =>
      tooLargeDocument(url, this.limits.feedMaxBytes, "feed or page"),
    );
    return { kind: "text", url: finalUrl, contentType, text: decodeText(bytes, contentType) };
  }
}

/** The address behind an input that is not YouTube; `invalid_input` when malformed or carrying credentials, `unsupported_platform` for other schemes. */
function addressOf(input: string): URL {
  const value = input.trim();
  const scheme = (/^([a-z][a-z0-9+.-]*):\/\//i.exec(value) ?? /^(data|file|mailto|javascript|blob):/i.exec(value))?.[1];
  if (scheme && !/^https?$/i.test(scheme)) {
    throw new SourceError("unsupported", `${scheme}: addresses are not supported; send an http(s) URL.`);
  }
  const reference = parseVideoReference(value);
  switch (reference.kind) {
    case "other-url":
      refuseCredentials(reference.url);
      return reference.url;
    case "malformed":
      throw new SourceError(
        "invalid_input",
        `${JSON.stringify(value)} is neither a YouTube video nor the URL of a podcast, feed or media file.`,
      );
    default:
      throw new SourceError("unsupported", `${value} is a YouTube address, not a podcast or a media file.`);
  }
}

/** The `video_id` of a media address given as it is: an episode on a podcast host, else a file. */
export function mediaVideoId(url: URL): string {
  return `${isPodcastMediaHost(url) ? "pod" : "file"}_${shortHash(url.href)}`;
}

/** The wire's `platform` of a media address given as it is: a podcast's on a podcast host, else a file's. */
export function mediaPlatformOf(url: URL): ResolvedAudioSource["platform"] {
  return isPodcastMediaHost(url) ? "podcast" : "file";
}

function mediaSource(url: URL, bytes: number | null): ResolvedAudioSource {
  const onPodcastHost = isPodcastMediaHost(url);
  const fileName = decodeURIComponent(url.pathname.split("/").at(-1) ?? "") || null;
  return {
    platform: mediaPlatformOf(url),
    videoId: mediaVideoId(url),
    url: url.href,
    // A tracked enclosure's file name ("media.mp3") says nothing; a plain file's usually does.
    title: onPodcastHost ? null : fileName,
    channel: null,
    declaredDurationSeconds: null,
    declaredBytes: bytes,
    thumbnailUrl: null,
    language: null,
    mediaUrl: url.href,
    podcast: onPodcastHost
      ? { show: null, episode: null, publishedAt: null, feedUrl: null, audioUrl: url.href, resolvedVia: "direct" }
      : null,
    publisherTranscripts: [],
    notes: null,
  };
}

/**
 * An episode of a feed as a source. Its `videoId` hashes the feed and the episode, so the
 * episode is one item however it was reached; `url` is the address that led to it (an episode
 * page, an Apple or Spotify link), else the episode's own page, else its enclosure.
 */
export function feedEpisodeSource(
  feed: ParsedFeed,
  feedUrl: URL,
  episode: FeedEpisode,
  via: { url: string; resolvedVia: PodcastResolution } | null = null,
): ResolvedAudioSource {
  return {
    platform: "podcast",
    videoId: feedEpisodeVideoId(feedUrl.href, episode.guid ?? episode.enclosureUrl),
    url: via?.url ?? episode.link ?? episode.enclosureUrl,
    title: episode.title,
    channel: feed.title,
    declaredDurationSeconds: episode.durationSeconds,
    // Feeds' enclosure lengths are too often 0 or stale to judge the media by.
    declaredBytes: null,
    thumbnailUrl: episode.imageUrl ?? feed.imageUrl,
    language: feed.language,
    mediaUrl: episode.enclosureUrl,
    podcast: {
      show: feed.title,
      episode: episode.title,
      publishedAt: episode.publishedAt,
      feedUrl: feedUrl.href,
      audioUrl: episode.enclosureUrl,
      resolvedVia: via?.resolvedVia ?? "rss",
    },
    publisherTranscripts: episode.transcripts,
    notes: {
      description: episode.description,
      keywords: episode.keywords,
      showUrl: feed.link,
      chaptersUrl: episode.chaptersUrl,
    },
  };
}

/** Bytes of a chapters file at most: a list of titles and times. */
const chaptersMaxBytes = 1024 * 1024;

/**
 * The chapters of a JSON chapters file (the namespace's `{"version", "chapters": [{"startTime",
 * "title", "toc"}]}`): those with a title and a start, leaving out what the file marks as not for
 * the table of contents (`"toc": false`).
 */
function chaptersOfFile(file: unknown): EpisodeChapter[] {
  const chapters = (file as { chapters?: unknown } | null)?.chapters;
  if (!Array.isArray(chapters)) return [];
  return chapters.flatMap((chapter): EpisodeChapter[] => {
    if (typeof chapter !== "object" || chapter === null) return [];
    const { title, startTime, toc } = chapter as { title?: unknown; startTime?: unknown; toc?: unknown };
    if (toc === false || typeof title !== "string" || typeof startTime !== "number") return [];
    return [{ title, start: startTime }];
  });
}

function episodeOrFailure(
  feed: ParsedFeed,
  episode: FeedEpisode | undefined,
): { feed: ParsedFeed; episode: FeedEpisode } | CandidateFailure {
  return episode ? { feed, episode } : "episode_not_in_feed";
}

function feedNotFound(message: string, reason: CandidateFailure | "no_feed_link", candidates: string[]): SourceError {
  return new SourceError(reason, message, { candidates });
}

function tooLargeDocument(url: URL, maxBytes: number, kind: string): SourceError {
  return new SourceError(
    "invalid_input",
    `${url.href} is larger than ${megabytes(maxBytes)}, the most read of a ${kind}.`,
  );
}

function isHtml(document: Extract<FetchedDocument, { kind: "text" }>): boolean {
  const type = mimeTypeOf(document.contentType);
  if (type === "text/html" || type === "application/xhtml+xml") return true;
  return /^\s*(?:<!doctype html|<html)/i.test(document.text);
}

function isTextType(contentType: string | null): boolean {
  const type = mimeTypeOf(contentType);
  return type !== null && (type.startsWith("text/") || type.endsWith("+xml") || type === "application/xml");
}

function withDeadline(signal: AbortSignal | undefined, milliseconds: number): AbortSignal {
  const deadline = AbortSignal.timeout(milliseconds);
  return signal ? AbortSignal.any([signal, deadline]) : deadline;
}

/** The `video_id` of a feed's episode, by the feed and the episode's GUID (else its enclosure): one item however it is reached. */
export function feedEpisodeVideoId(feedUrl: string, guidOrEnclosure: string): string {
  return `pod_${shortHash(`${feedUrl}\n${guidOrEnclosure}`)}`;
}

function shortHash(value: string): string {
  return createHash("sha256").update(value).digest("hex").slice(0, 16);
}
