import type { AppleDirectory } from "../podcast-directory/apple-directory.ts";
import type { DirectoryShow } from "../podcast-directory/directory-answers.ts";
import type { EpisodeLead } from "../podcast-directory/episode-match.ts";
import { nearestFeeds, showsNamed } from "../podcast-directory/show-match.ts";
import type { WebReader } from "../podcast-directory/web-reader.ts";
import { SourceError } from "../source-error.ts";
import { parseSpotifyLink, type SpotifyLink } from "./spotify-link.ts";
import { episodeFactsOfPage, type SpotifyEpisodeFacts } from "./spotify-page.ts";
import { type SpotifyCredentials, SpotifyWebApi } from "./spotify-web-api.ts";

type EpisodeLink = Extract<SpotifyLink, { kind: "episode" }>;

const spotifyOrigin = "https://open.spotify.com";
const oembedMaxBytes = 256 * 1024;
const pageMaxBytes = 4 * 1024 * 1024;

/** A Spotify show found in Apple's directory: its name as Spotify writes it, and the shows of that name that have a public feed. */
export interface SpotifyShowFeeds {
  name: string;
  publisher: string | null;
  /** Best first; never empty. */
  shows: DirectoryShow[];
}

/**
 * Spotify episode links. Spotify serves most shows from the publisher's public feed but never
 * says which, so a link leads there by name: the episode's show, title and date (from its public
 * page and oEmbed answer, or from the Web API when the operator gave credentials), the show's
 * feed from Apple's directory, and the episode in that feed by title and date. A show only
 * Spotify has (an exclusive) has no public feed to read.
 */
export class SpotifyEpisodes {
  /** The Web API, when the operator gave credentials; else public pages are read. */
  readonly webApi: SpotifyWebApi | null;

  constructor(
    private readonly reader: WebReader,
    private readonly directory: AppleDirectory,
    credentials: SpotifyCredentials | null,
  ) {
    this.webApi = credentials ? new SpotifyWebApi(reader, credentials) : null;
  }

  /** The link an input is, offline; null when it is not Spotify's. */
  match(input: string): SpotifyLink | null {
    return parseSpotifyLink(input);
  }

  async lead(link: SpotifyLink, options: { signal?: AbortSignal } = {}): Promise<EpisodeLead> {
    if (link.kind === "show") {
      throw new SourceError(
        "listing",
        `${link.url} is a Spotify show, not an episode: send the link of one episode, or list the show's episodes with POST /transcripts/channel.`,
      );
    }
    if (link.kind === "other") {
      throw new SourceError(
        "unsupported",
        `${link.url} is on Spotify but is no podcast episode; music is not transcribed.`,
      );
    }
    const facts = await this.episodeFacts(link, options.signal);
    const { shows } = await this.feedsOf(facts.show, facts.publisher, options.signal);
    return {
      feedUrls: shows.map((show) => show.feedUrl).filter((feed): feed is string => feed !== null),
      clue: { guid: null, enclosureUrl: null, title: facts.title, publishedAt: facts.publishedAt },
      url: link.url,
      resolvedVia: "spotify",
    };
  }

  /** A Spotify show link's public feeds, by the show's name in Apple's directory. */
  async showFeeds(link: SpotifyLink, options: { signal?: AbortSignal } = {}): Promise<SpotifyShowFeeds> {
    if (link.kind !== "show") throw new SourceError("invalid_input", `${link.url} is no Spotify show.`);
    const show = await this.showName(link, options.signal);
    return this.feedsOf(show.name, show.publisher, options.signal);
  }

  private async feedsOf(
    name: string,
    publisher: string | null,
    signal: AbortSignal | undefined,
  ): Promise<SpotifyShowFeeds> {
    const found = await this.directory.searchShows(name, signal ? { signal } : {});
    const shows = showsNamed(found, name, publisher);
    if (shows.length === 0) {
      throw new SourceError(
        "no_public_feed",
        `Apple's directory lists no show named "${name}" with a public feed: it is likely a Spotify exclusive, whose episodes only Spotify serves.`,
        { candidates: nearestFeeds(found) },
      );
    }
    return { name, publisher, shows };
  }

  private async episodeFacts(link: EpisodeLink, signal: AbortSignal | undefined): Promise<SpotifyEpisodeFacts> {
    if (this.webApi) {
      const facts = await this.webApi.episode(link.id, signal);
      if (!facts) throw new SourceError("unavailable", `Spotify has no episode ${link.url}.`);
      return facts;
    }
    const call = { maxBytes: oembedMaxBytes, ...(signal ? { signal } : {}) };
    const oembed = await this.reader.json(oembedUrl(link.url), call);
    if (oembed.status === 404 || oembed.status === 400) {
      throw new SourceError("unavailable", `Spotify has no episode ${link.url}.`);
    }
    if (oembed.status < 200 || oembed.status > 299) {
      throw new SourceError("blocked", `Spotify answered HTTP ${oembed.status} for the oEmbed of ${link.url}.`);
    }
    const { status, page } = await this.reader.page(new URL(link.url), { ...call, maxBytes: pageMaxBytes });
    if (status === 404) throw new SourceError("unavailable", `Spotify has no episode ${link.url}.`);
    if (!page) throw new SourceError("blocked", `Spotify answered HTTP ${status} for ${link.url}.`);
    const facts = episodeFactsOfPage(page.meta, titleOf(oembed.value));
    if (!facts) {
      throw new SourceError("unparseable", `Spotify's page of ${link.url} does not name the episode's show.`);
    }
    return facts;
  }

  private async showName(
    link: Extract<SpotifyLink, { kind: "show" }>,
    signal: AbortSignal | undefined,
  ): Promise<{ name: string; publisher: string | null }> {
    if (this.webApi) {
      const show = await this.webApi.show(link.id, signal);
      if (!show) throw new SourceError("unavailable", `Spotify has no show ${link.url}.`);
      return show;
    }
    const oembed = await this.reader.json(oembedUrl(link.url), {
      maxBytes: oembedMaxBytes,
      ...(signal ? { signal } : {}),
    });
    if (oembed.status === 404 || oembed.status === 400)
      throw new SourceError("unavailable", `Spotify has no show ${link.url}.`);
    const name = titleOf(oembed.value);
    if (!name) throw new SourceError("unparseable", `Spotify's oEmbed of ${link.url} names no show.`);
    return { name, publisher: null };
  }
}

/** Spotify's oEmbed endpoint for a link (https://developer.spotify.com/documentation/embeds/reference/oembed). */
function oembedUrl(link: string): URL {
  return new URL(`/oembed?${new URLSearchParams({ url: link })}`, spotifyOrigin);
}

function titleOf(value: unknown): string | null {
  const title = typeof value === "object" && value !== null ? (value as { title?: unknown }).title : undefined;
  return typeof title === "string" && title.trim().length > 0 ? title.trim() : null;
}
