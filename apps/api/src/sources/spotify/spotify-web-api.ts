import type { WebReader } from "../podcast-directory/web-reader.ts";
import { SourceError } from "../source-error.ts";
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
    const value = await this.get(`/v1/episodes/${id}`, `the episode ${id}`, signal);
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
    const value = await this.get(`/v1/shows/${id}`, `the show ${id}`, signal);
    if (value === null) return null;
    const name = textOf(recordOf(value).name);
    if (!name) throw new SourceError("unparseable", `Spotify's Web API answered the show ${id} without its name.`);
    return { name, publisher: textOf(recordOf(value).publisher) };
  }

  /** A catalog object; null for 404 (and 400, Spotify's answer to an id it cannot read). An expired token is renewed once. */
  private async get(path: string, what: string, signal: AbortSignal | undefined): Promise<unknown> {
    const url = new URL(`${path}?market=${market}`, apiOrigin);
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

function textOf(value: unknown): string | null {
  return typeof value === "string" && value.trim().length > 0 ? value.trim() : null;
}
