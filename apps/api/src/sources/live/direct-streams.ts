import { maxPlaylistChars, PlaylistError, parsePlaylist } from "../../adapters/live/hls-playlist.ts";
import { type PublicFetch, readBodyWithin } from "../../adapters/net/public-fetch.ts";
import { SourceError } from "../source-error.ts";
import type { LiveResolution, LiveResolveOptions, LiveSource, LiveStreamRef } from "./live-source.ts";

/** Content types of an HLS playlist (RFC 8216, 4). */
const playlistTypes = /^(application\/(vnd\.apple\.mpegurl|x-mpegurl)|audio\/(x-)?mpegurl)\b/i;

/** Content types of audio a radio server streams endlessly. */
const streamedAudioTypes = /^(audio\/|application\/ogg\b)/i;

/**
 * Live streams at an address given directly: an HLS playlist (`.m3u8`, or an answer that says or
 * shows it is one) or an Icecast/SHOUTcast radio stream. The address is read through the public
 * fetch, under the public-address rule; a playlist already finished (`#EXT-X-ENDLIST`) when a
 * session is asked for is a recording.
 */
export class DirectLiveStreams implements LiveSource {
  constructor(private readonly fetch: PublicFetch) {}

  match(url: URL): LiveStreamRef | null {
    return { kind: "direct", url: url.href };
  }

  async resolve(ref: LiveStreamRef, options: LiveResolveOptions = {}): Promise<LiveResolution> {
    const details = { platform: "file", videoId: null, title: null, channel: null };
    const response = await this.fetch(ref.url, {
      headers: { "icy-metadata": "0" },
      ...(options.signal ? { signal: options.signal } : {}),
    });
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      throw new SourceError(
        response.status >= 500 ? "connection" : "unavailable",
        `${ref.url} answered ${response.status}.`,
      );
    }
    const type = response.headers.get("content-type") ?? "";
    const isRadio = streamedAudioTypes.test(type) && !playlistTypes.test(type);
    if (isRadio || response.headers.has("icy-name") || response.headers.has("icy-br")) {
      await response.body?.cancel().catch(() => undefined);
      return { state: "live", reading: "icecast", address: ref.url, details };
    }
    const body = await readBodyWithin(
      response,
      new URL(ref.url),
      maxPlaylistChars,
      () => new SourceError("invalid_input", `${ref.url} answers more than a playlist: it is no live stream.`),
    );
    const text = body.toString("utf8");
    if (!text.trimStart().startsWith("#EXTM3U")) {
      throw new SourceError(
        "not_live",
        `${ref.url} is neither an HLS playlist nor a radio stream; a recording is transcribed by the video endpoint.`,
      );
    }
    let playlist: ReturnType<typeof parsePlaylist>;
    try {
      playlist = parsePlaylist(text, ref.url);
    } catch (error) {
      if (error instanceof PlaylistError) throw new SourceError("invalid_input", `${ref.url}: ${error.message}`);
      throw error;
    }
    if (options.admission && playlist.kind === "media" && playlist.ended) {
      throw new SourceError(
        "not_live",
        `${ref.url} is a finished playlist (#EXT-X-ENDLIST): a recording, not a live stream.`,
      );
    }
    return { state: "live", reading: "hls", address: ref.url, details };
  }
}
