import type { WebReader } from "../podcast-directory/web-reader.ts";
import { SourceError } from "../source-error.ts";
import { spotifyIdPattern } from "./spotify-link.ts";
import { releaseDateOf, type SpotifyEpisodeFacts } from "./spotify-page.ts";

/** `VERBATIM_SPOTIFY_CLIENT_ID` and `VERBATIM_SPOTIFY_CLIENT_SECRET`: an app of Spotify's developer dashboard. */
export interface SpotifyCredentials {
  clientId: string;
  clientSecret: string;
}

const tokenUrl = "https://accounts.spotify.com/api/token";
const apiOrigin = "https://api.spotify.com";
/** Catalog calls without a user need a market; an episode of any market is found in this one or not at all. */
const market = "US";
const answerMaxBytes = 1024 * 1024;
/** A token is renewed this long before Spotify says it expires, so no call carries one that lapses on the way. */
const renewalMarginMs = 60_000;
/** Spotify's search answers at most 50 results a call, and none past the 1,000th. */
export const spotifySearchPageSize = 50;
export const spotifySearchMaxResults = 1000;

/** An episode a search found, as Spotify's simplified episode object has it (no show). */
export interface SpotifyFoundEpisode {
  id: string;
  name: string;
  durationSeconds: number | null;
  publishedAt: Date | null;
  imageUrl: string | null;
}

/** A show a search found. */
export interface SpotifyFoundShow {
  id: string;
  name: string;
  publisher: string | null;
  imageUrl: string | null;
}

/** One page of a search: its results, and the offset of the next page when Spotify has one within its cap. */
export interface SpotifySearchPage<Found> {
  found: Found[];
  nextOffset: number | null;
}

/**
 * Spotify's Web API with the client-credentials flow (an app's id and secret, no user): an
 * episode's name, release date and show (name and publisher). The token is kept until shortly
 * before it expires, and one is asked for at a time.
 */
export class SpotifyWebApi {
  private token: { value: string; expiresAt: number } | null = null;
  private pendingToken: Promise<string> | null = null;

  constructor(
    private readonly reader: WebReader,
    private readonly credentials: SpotifyCredentials,
    private readonly now: () => number = Date.now,
  ) {}

  /** An episode's facts; null when Spotify has no such episode. */
  async episode(id: string, signal?: AbortSignal): Promise<SpotifyEpisodeFacts | null> {
    const value = await this.get(`/v1/episodes/${id}`, {}, `the episode ${id}`, signal);
    if (value === null) return null;
    const show = recordOf(recordOf(value).show);
    const title = textOf(recordOf(value).name);
    const showName = textOf(show.name);
    if (!title || !showName) {
      throw new SourceError("unparseable", `Spotify's Web API answered the episode ${id} without its name or show.`);
    }
    const precision = textOf(recordOf(value).release_date_precision);
    return {
      title,
      show: showName,
      publisher: textOf(show.publisher),
      publishedAt:
        precision === null || precision === "day" ? releaseDateOf(textOf(recordOf(value).release_date)) : null,
    };
  }

  /** A show's name and publisher; null when Spotify has no such show. */
  async show(id: string, signal?: AbortSignal): Promise<{ name: string; publisher: string | null } | null> {
    const value = await this.get(`/v1/shows/${id}`, {}, `the show ${id}`, signal);
    if (value === null) return null;
    const name = textOf(recordOf(value).name);
    if (!name) throw new SourceError("unparseable", `Spotify's Web API answered the show ${id} without its name.`);
    return { name, publisher: textOf(recordOf(value).publisher) };
  }

  /** Episodes whose names or descriptions match `query`, by Spotify's relevance, from `offset`. */
  searchEpisodes(query: string, offset: number, signal?: AbortSignal): Promise<SpotifySearchPage<SpotifyFoundEpisode>> {
    return this.search(query, "episode", offset, signal, (item, id) => {
      const name = textOf(item.name);
      const precision = textOf(item.release_date_precision);
      const durationMs = item.duration_ms;
      return name === null
        ? null
        : {
            id,
            name,
            durationSeconds:
              typeof durationMs === "number" && Number.isFinite(durationMs) && durationMs >= 0
                ? durationMs / 1000
                : null,
            publishedAt: precision === null || precision === "day" ? releaseDateOf(textOf(item.release_date)) : null,
            imageUrl: imageOf(item.images),
          };
    });
  }

  /** Shows whose names match `query`, by Spotify's relevance, from `offset`. */
  searchShows(query: string, offset: number, signal?: AbortSignal): Promise<SpotifySearchPage<SpotifyFoundShow>> {
    return this.search(query, "show", offset, signal, (item, id) => {
      const name = textOf(item.name);
      return name === null ? null : { id, name, publisher: textOf(item.publisher), imageUrl: imageOf(item.images) };
    });
  }

  /**
   * One page of a search. Spotify's answer is read as hostile: results that are not objects, lack
   * a well-formed id or a name are left out (its search answers `null` in place of some results).
   */
  private async search<Found>(
    query: string,
    type: "episode" | "show",
    offset: number,
    signal: AbortSignal | undefined,
    found: (item: Record<string, unknown>, id: string) => Found | null,
  ): Promise<SpotifySearchPage<Found>> {
    const parameters = { q: query, type, limit: String(spotifySearchPageSize), offset: String(offset) };
    const value = await this.get("/v1/search", parameters, `a search of ${type}s`, signal);
    const page = recordOf(recordOf(value)[`${type}s`]);
    const items = Array.isArray(page.items) ? page.items : [];
    const results = items.flatMap((item: unknown) => {
      const record = recordOf(item);
      const id = textOf(record.id);
      const result = id !== null && spotifyIdPattern.test(id) ? found(record, id) : null;
      return result === null ? [] : [result];
    });
    const nextOffset = offset + spotifySearchPageSize;
    const hasNext = typeof page.next === "string" && items.length > 0 && nextOffset < spotifySearchMaxResults;
    return { found: results, nextOffset: hasNext ? nextOffset : null };
  }

  /** A catalog object; null for 404 (and 400, Spotify's answer to an id it cannot read). An expired token is renewed once. */
  private async get(
    path: string,
    parameters: Record<string, string>,
    what: string,
    signal: AbortSignal | undefined,
  ): Promise<unknown> {
    const url = new URL(path, apiOrigin);
    for (const [name, value] of Object.entries({ ...parameters, market })) url.searchParams.set(name, value);
    for (let attempt = 0; ; attempt++) {
      const token = await this.accessToken();
      const answer = await this.reader.json(url, {
        headers: { authorization: `Bearer ${token}` },
        maxBytes: answerMaxBytes,
        ...(signal ? { signal } : {}),
      });
      if (answer.status === 401 && attempt === 0) {
        this.token = null;
        continue;
      }
      if (answer.status === 404 || answer.status === 400) return null;
      if (answer.status < 200 || answer.status > 299) {
        throw new SourceError("blocked", `Spotify's Web API answered HTTP ${answer.status} for ${what}.`);
      }
      return answer.value;
    }
  }

  /** The token; one request for it serves every call waiting, so no caller's abort may cancel it. */
  private accessToken(): Promise<string> {
    if (this.token && this.token.expiresAt > this.now()) return Promise.resolve(this.token.value);
    this.pendingToken ??= this.requestToken().finally(() => {
      this.pendingToken = null;
    });
    return this.pendingToken;
  }

  private async requestToken(): Promise<string> {
    const basic = Buffer.from(`${this.credentials.clientId}:${this.credentials.clientSecret}`).toString("base64");
    const answer = await this.reader.json(new URL(tokenUrl), {
      method: "POST",
      headers: { authorization: `Basic ${basic}`, "content-type": "application/x-www-form-urlencoded" },
      body: "grant_type=client_credentials",
      maxBytes: 64 * 1024,
    });
    if (answer.status < 200 || answer.status > 299) {
      throw new SourceError(
        "blocked",
        `Spotify refused the server's Web API credentials (HTTP ${answer.status}); its operator checks VERBATIM_SPOTIFY_CLIENT_ID and VERBATIM_SPOTIFY_CLIENT_SECRET.`,
      );
    }
    const value = textOf(recordOf(answer.value).access_token);
    const expiresIn = recordOf(answer.value).expires_in;
    if (!value) throw new SourceError("unparseable", "Spotify answered the token request without an access token.");
    const lifetimeMs = typeof expiresIn === "number" && expiresIn > 0 ? expiresIn * 1000 : 3_600_000;
    this.token = { value, expiresAt: this.now() + lifetimeMs - renewalMarginMs };
    return value;
  }
}

function recordOf(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** Spotify's first image, its widest. */
function imageOf(images: unknown): string | null {
  const [first] = Array.isArray(images) ? images : [];
  const url = textOf(recordOf(first).url);
  return url !== null && URL.canParse(url) && url.startsWith("https://") ? url : null;
}

function textOf(value: unknown): string | null {
  return typeof value === "string" && value.trim().length > 0 ? value.trim() : null;
}
