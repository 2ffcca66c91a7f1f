import { createWriteStream } from "node:fs";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { type Dispatcher, ProxyAgent, fetch as undiciFetch } from "undici";
import type { Innertube } from "youtubei.js";
import { ApiError } from "../../errors.ts";
import { ByteLimit } from "../net/byte-limit.ts";
import { callInnertube } from "./innertube-calls.ts";
import { type AudioStream, readPlayerResponse, type VideoDetails } from "./player-response.ts";
import { UpstreamError } from "./upstream-errors.ts";
import { statusFailure, transportFailure } from "./upstream-fetch.ts";

/** An audio stream and the route it was resolved through: its address works only from that route's IP. */
export interface RoutedStream extends AudioStream {
  /** Which of the source's routes asked for it. */
  route: number;
}

/** A video's details and the audio stream to transcribe. */
export interface YoutubeAudio {
  details: VideoDetails;
  stream: RoutedStream;
}

/** One way out to YouTube: a session for the player call, and the proxy (if any) its requests take. */
export interface StreamRoute {
  innertube: () => Promise<Innertube>;
  proxyUrl?: string;
}

/** What a stream download wrote. */
export interface DownloadedStream {
  bytes: number;
  contentType: string | null;
}

/** The audio of YouTube videos, for speech recognition when captions are missing or not wanted. */
export interface YoutubeAudioSource {
  /** The video's audio stream; throws `VideoUnavailableError` or `UpstreamError` as the caption source does. */
  resolveAudio(videoId: string): Promise<YoutubeAudio>;
  /** Streams the audio to `destinationPath` in ranged chunks, within the size and time limits. */
  download(
    stream: RoutedStream,
    destinationPath: string,
    options?: { signal?: AbortSignal },
  ): Promise<DownloadedStream>;
}

/** How stream downloads reach YouTube's media servers. */
export interface StreamDownloadConfig {
  /** `VERBATIM_YOUTUBE_MEDIA_ORIGIN`: where `*.googlevideo.com` requests go instead; unset, the host YouTube names. */
  mediaOrigin?: string;
  /** Bytes of one stream at most. */
  maxBytes: number;
  /** Milliseconds one whole download may take. */
  timeoutMs: number;
  /** Milliseconds to wait for each chunk's headers and for each pause in its body. */
  chunkTimeoutMs: number;
  /** Bytes per ranged request; YouTube throttles unranged reads of a stream to playback speed. */
  chunkBytes?: number;
}

const defaultChunkBytes = 10 * 1024 * 1024;

/**
 * Audio streams through youtubei.js: the ANDROID `player` call, whose streams carry plain
 * addresses (no signature cipher, so no player script), then ranged `videoplayback` reads
 * through the route (proxy) that resolved the stream. Videos take the routes in turn.
 */
export class YoutubeiAudioSource implements YoutubeAudioSource {
  private readonly dispatchers: Array<Dispatcher | undefined>;
  private nextRoute = 0;

  constructor(
    private readonly routes: readonly StreamRoute[],
    private readonly config: StreamDownloadConfig,
  ) {
    if (routes.length === 0) throw new Error("YoutubeiAudioSource needs at least one route");
    this.dispatchers = routes.map((route) =>
      route.proxyUrl === undefined ? undefined : new ProxyAgent(route.proxyUrl),
    );
  }

  async resolveAudio(videoId: string): Promise<YoutubeAudio> {
    const route = this.nextRoute++ % this.routes.length;
    const yt = await (this.routes[route] as StreamRoute).innertube();
    const video = readPlayerResponse(await callInnertube(yt, "/player", { videoId, client: "ANDROID" }), videoId);
    const stream = video.audioStreams[0];
    if (!stream) {
      throw new UpstreamError(
        "blocked",
        `YouTube offered no audio stream of video ${videoId} that can be read without its player script.`,
      );
    }
    return { details: video.details, stream: { ...stream, route } };
  }

  async download(
    stream: RoutedStream,
    destinationPath: string,
    options: { signal?: AbortSignal } = {},
  ): Promise<DownloadedStream> {
    const { maxBytes, timeoutMs } = this.config;
    if (stream.contentLength !== null && stream.contentLength > maxBytes) throw tooLarge(maxBytes);
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
    let contentType: string | null = null;
    const chunks = this.chunks(stream, signal, (type) => {
      contentType ??= type;
    });
    const sizeLimit = new ByteLimit(maxBytes, () => tooLarge(maxBytes));
    try {
      await pipeline(Readable.from(chunks), sizeLimit, createWriteStream(destinationPath), { signal });
    } catch (error) {
      if (error instanceof UpstreamError || error instanceof ApiError || options.signal?.aborted) throw error;
      if (deadline.aborted) {
        throw new UpstreamError("timeout", `The audio stream did not download within ${timeoutMs / 1000} s.`);
      }
      // A file system failure (a full disk) is ours; anything else broke the stream on its way.
      if ((error as { syscall?: unknown }).syscall !== undefined) throw error;
      throw new UpstreamError("connection", "The audio stream broke off before its end.", undefined, { cause: error });
    }
    return { bytes: sizeLimit.bytes, contentType };
  }

  /** The stream's bytes, one ranged request after another until the stream ends. */
  private async *chunks(
    stream: RoutedStream,
    signal: AbortSignal,
    onContentType: (type: string | null) => void,
  ): AsyncGenerator<Uint8Array> {
    const chunkBytes = this.config.chunkBytes ?? defaultChunkBytes;
    for (let offset = 0; stream.contentLength === null || offset < stream.contentLength; offset += chunkBytes) {
      const response = await this.fetchRange(stream, offset, offset + chunkBytes - 1, signal);
      // A stream of unknown length that ended exactly on a chunk boundary.
      if (response === null) return;
      onContentType(response.headers.get("content-type"));
      let received = 0;
      for await (const piece of Readable.fromWeb(response.body as WebReadableStream<Uint8Array>)) {
        received += (piece as Uint8Array).length;
        yield piece as Uint8Array;
      }
      if (received < chunkBytes) return;
    }
  }

  private async fetchRange(stream: RoutedStream, first: number, last: number, signal: AbortSignal) {
    const target = new URL(stream.url);
    target.searchParams.set("range", `${first}-${last}`);
    const address = this.config.mediaOrigin
      ? new URL(target.pathname + target.search, this.config.mediaOrigin)
      : target;
    const dispatcher = this.dispatchers[stream.route];
    let response: Awaited<ReturnType<typeof undiciFetch>>;
    try {
      response = await undiciFetch(address, {
        signal: AbortSignal.any([signal, AbortSignal.timeout(this.config.chunkTimeoutMs)]),
        ...(dispatcher ? { dispatcher } : {}),
      });
    } catch (error) {
      if (signal.aborted) throw error;
      throw transportFailure(error, address);
    }
    if (response.status === 416 && first > 0) {
      await response.body?.cancel();
      return null;
    }
    if (!response.ok || response.body === null) {
      await response.body?.cancel();
      // 403 is the usual answer to an expired address, or one bound to another IP (a different proxy).
      throw statusFailure(response.status, address);
    }
    return response;
  }
}

function tooLarge(maxBytes: number): ApiError {
  return new ApiError(
    "audio_ineligible",
    `The audio stream is larger than ${Math.round(maxBytes / 1024 / 1024)} MiB, the most downloaded (VERBATIM_DOWNLOAD_MAX_BYTES).`,
  );
}
