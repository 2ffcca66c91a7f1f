import { Readable } from "node:stream";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { Agent, type Dispatcher, ProxyAgent, fetch as undiciFetch } from "undici";
import type { Innertube } from "youtubei.js";
import { SourceError } from "../../sources/source-error.ts";
import { type DownloadOptions, MediaDownload, type MediaDownloadLimits } from "../net/media-download.ts";
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
  /** Streams the audio to `destinationPath` in ranged chunks, within the media download limits. */
  download(stream: RoutedStream, destinationPath: string, options?: DownloadOptions): Promise<DownloadedStream>;
}

/** How stream downloads reach YouTube's media servers, within the limits of every media download. */
export interface StreamDownloadConfig extends MediaDownloadLimits {
  /** `VERBATIM_YOUTUBE_MEDIA_ORIGIN`: where `*.googlevideo.com` requests go instead; unset, the host YouTube names. */
  mediaOrigin?: string;
  /** Milliseconds to wait for each chunk's headers and for each pause in its body. */
  chunkTimeoutMs: number;
  /** Bytes per ranged request; YouTube throttles unranged reads of a stream to playback speed. */
  chunkBytes?: number;
  /** The certificate authorities TLS connections trust (`caCertificatesFrom`); default Node's bundled roots. */
  ca?: readonly string[];
}

const defaultChunkBytes = 10 * 1024 * 1024;

/**
 * Audio streams through youtubei.js: the ANDROID `player` call, whose streams carry plain
 * addresses (no signature cipher, so no player script), then ranged `videoplayback` reads
 * through the route (proxy) that resolved the stream. Videos take the routes in turn.
 */
export class YoutubeiAudioSource implements YoutubeAudioSource {
  private readonly dispatchers: Dispatcher[];
  private nextRoute = 0;

  constructor(
    private readonly routes: readonly StreamRoute[],
    private readonly config: StreamDownloadConfig,
  ) {
    if (routes.length === 0) throw new Error("YoutubeiAudioSource needs at least one route");
    // As for other media, a wait for headers or inside a body is bounded; the pace is the floor's to judge.
    const waits = { headersTimeout: config.chunkTimeoutMs, bodyTimeout: config.chunkTimeoutMs };
    const tls = config.ca ? { ca: [...config.ca] } : undefined;
    this.dispatchers = routes.map((route) =>
      route.proxyUrl === undefined
        ? new Agent({ ...waits, ...(tls ? { connect: tls } : {}) })
        : new ProxyAgent({ uri: route.proxyUrl, ...waits, ...(tls ? { requestTls: tls, proxyTls: tls } : {}) }),
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
    options: DownloadOptions = {},
  ): Promise<DownloadedStream> {
    const download = new MediaDownload("The audio stream", this.config, options);
    download.refuseDeclaredSize(stream.contentLength);
    let contentType: string | null = null;
    const chunks = this.chunks(stream, download.signal, (type) => {
      contentType ??= type;
    });
    try {
      const bytes = await download.save(Readable.from(chunks), destinationPath);
      return { bytes, contentType };
    } catch (caught) {
      const error = download.failure(caught);
      if (error instanceof SourceError || options.signal?.aborted) throw error;
      // A file system failure (a full disk) is ours; anything else broke the stream on its way.
      if ((error as { syscall?: unknown }).syscall !== undefined) throw error;
      throw new UpstreamError("connection", "The audio stream broke off before its end.", undefined, { cause: error });
    }
  }

  /** The stream's bytes, one ranged request after another until the stream ends. */
  private async *chunks(
    stream: RoutedStream,
    signal: AbortSignal,
    onContentType: (type: string | null) => void,
  ): AsyncGenerator<Uint8Array> {
    const chunkBytes = this.config.chunkBytes ?? defaultChunkBytes;
    for (let offset = 0; stream.contentLength === null || offset < stream.contentLength; offset += chunkBytes) {
      const chunk = await this.fetchRange(stream, offset, offset + chunkBytes - 1, signal);
      // A stream of unknown length that ended exactly on a chunk boundary.
      if (chunk === null) return;
      onContentType(chunk.response.headers.get("content-type"));
      let received = 0;
      try {
        for await (const piece of Readable.fromWeb(chunk.response.body as WebReadableStream<Uint8Array>)) {
          received += (piece as Uint8Array).length;
          yield piece as Uint8Array;
        }
      } catch (error) {
        if (signal.aborted) throw error;
        throw transportFailure(error, chunk.address);
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
    let response: Awaited<ReturnType<typeof undiciFetch>>;
    try {
      response = await undiciFetch(address, {
        // As for other media: a compressed body would be inflated on arrival, far beyond what the wire carried.
        headers: { "accept-encoding": "identity" },
        signal,
        dispatcher: this.dispatchers[stream.route] as Dispatcher,
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
    return { response, address };
  }
}
