import type { ParsedFeed } from "../../adapters/audio-sources/feeds.ts";
import { feedFormatOf } from "../../adapters/audio-sources/feeds.ts";
import { hasMediaExtension, isMediaContentType, mimeTypeOf } from "../../adapters/audio-sources/media-addresses.ts";
import { decodeText } from "../../adapters/audio-sources/text-decoding.ts";
import { megabytes } from "../../adapters/net/media-download.ts";
import { type PublicFetch, readBodyWithin } from "../../adapters/net/public-fetch.ts";
import type { IsolatedParser } from "../../adapters/parsing/isolated-parser.ts";
import { SourceError } from "../source-error.ts";

/** The limits a feed is read within. */
export interface FeedDocumentLimits {
  /** Bytes of one feed or page at most. */
  feedMaxBytes: number;
  /** Milliseconds one feed or page may take, headers and body. */
  documentTimeoutMs: number;
  /** Feeds a page links to that are tried, at most. */
  maxFeedCandidates: number;
}

/** A feed, and the address it was read from (the page's feed link, for a page). */
export interface FoundFeed {
  feed: ParsedFeed;
  feedUrl: URL;
}

const documentAccept =
  "application/rss+xml, application/atom+xml, application/xml;q=0.9, text/xml;q=0.9, text/html;q=0.8, */*;q=0.5";

/**
 * Reads the feed an address names: the feed itself, or the first usable feed a page links to.
 * Every fetch goes through the public-address fetch within the byte cap and deadline; every
 * document is parsed on the isolated parser. Failures are `SourceError`s: when there is no feed to
 * read, of the kind that says why (`no_feed_link`, `not_a_feed`, `feed_unreadable`), with the
 * candidates tried.
 */
export class FeedDocuments {
  constructor(
    private readonly fetch: PublicFetch,
    private readonly parser: IsolatedParser,
    private readonly limits: FeedDocumentLimits,
  ) {}

  async feedAt(address: URL, signal?: AbortSignal): Promise<FoundFeed> {
    const document = await this.fetchText(address, signal);
    if (feedFormatOf(document.text) !== null) {
      const feed = await this.parseFeed(address, document);
      if (!feed)
        throw feedNotFound(`${address.href} is a feed that does not parse.`, "feed_unreadable", [address.href]);
      return { feed, feedUrl: address };
    }
    if (!isHtml(document)) {
      throw feedNotFound(
        `${address.href} answered ${mimeTypeOf(document.contentType) ?? "without a Content-Type"}: neither an RSS or Atom feed nor a page that links to one.`,
        "not_a_feed",
        [],
      );
    }
    const page = await this.parser.parse(`The page at ${address.href}`, "episodePage", document.text, document.url);
    if (page.feedUrls.length === 0) {
      throw feedNotFound(
        `${address.href} is neither an RSS or Atom feed nor a page that links to one.`,
        "no_feed_link",
        [],
      );
    }
    const candidates = page.feedUrls.slice(0, this.limits.maxFeedCandidates);
    let reason: "not_a_feed" | "feed_unreadable" = "not_a_feed";
    for (const candidate of candidates) {
      const feedUrl = new URL(candidate);
      const linked = await this.fetchText(feedUrl, signal).catch((error: unknown) => {
        if (signal?.aborted) throw error;
        return null;
      });
      if (linked === null) {
        reason = "feed_unreadable";
        continue;
      }
      if (feedFormatOf(linked.text) === null) continue;
      const feed = await this.parseFeed(feedUrl, linked).catch(() => null);
      if (feed) return { feed, feedUrl };
      reason = "feed_unreadable";
    }
    const explanation = reason === "not_a_feed" ? "none of them is an RSS or Atom feed" : "none of them could be read";
    throw feedNotFound(
      `${address.href} links to ${candidates.length === 1 ? "a feed" : `${candidates.length} feeds`}, but ${explanation}.`,
      reason,
      candidates,
    );
  }

  private parseFeed(feedUrl: URL, document: TextDocument): Promise<ParsedFeed | null> {
    return this.parser.parse(`The feed at ${feedUrl.href}`, "feed", document.text, document.url);
  }

  /** GETs a feed or a page within the limits; a media file there is an item, not a list. */
  private async fetchText(url: URL, signal: AbortSignal | undefined): Promise<TextDocument> {
    const deadline = AbortSignal.timeout(this.limits.documentTimeoutMs);
    const response = await this.fetch(url, {
      headers: { accept: documentAccept },
      signal: signal ? AbortSignal.any([signal, deadline]) : deadline,
    });
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      if (response.status === 404 || response.status === 410) {
        throw new SourceError(
          "invalid_input",
          `${url.href} answered HTTP ${response.status}: nothing is published at this address.`,
        );
      }
      throw new SourceError("blocked", `${url.host} answered HTTP ${response.status} for ${url.href}.`);
    }
    const contentType = response.headers.get("content-type");
    if (isMediaContentType(contentType) || (hasMediaExtension(url) && !isTextType(contentType))) {
      await response.body?.cancel().catch(() => undefined);
      throw new SourceError(
        "item_not_list",
        `${url.href} is a media file, not a feed; the video endpoint transcribes it.`,
      );
    }
    const bytes = await readBodyWithin(
      response,
      url,
      this.limits.feedMaxBytes,
      () =>
        new SourceError(
          "too_large",
          `${url.href} is larger than ${megabytes(this.limits.feedMaxBytes)}, the most read of a feed or page.`,
        ),
    );
    return { url: response.url || url.href, contentType, text: decodeText(bytes, contentType) };
  }
}

interface TextDocument {
  /** Where the document came from, after redirects. */
  url: string;
  contentType: string | null;
  text: string;
}

function feedNotFound(
  message: string,
  reason: "no_feed_link" | "not_a_feed" | "feed_unreadable",
  candidates: string[],
): SourceError {
  return new SourceError(reason, message, { candidates });
}

function isHtml(document: TextDocument): boolean {
  const type = mimeTypeOf(document.contentType);
  if (type === "text/html" || type === "application/xhtml+xml") return true;
  return /^\s*(?:<!doctype html|<html)/i.test(document.text);
}

function isTextType(contentType: string | null): boolean {
  const type = mimeTypeOf(contentType);
  return type !== null && (type.startsWith("text/") || type.endsWith("+xml") || type === "application/xml");
}
