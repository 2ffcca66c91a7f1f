import type { TimedSegment } from "../../adapters/audio-sources/audio-source.ts";
import { DownloadCapReached } from "../../adapters/net/media-download.ts";
import type { IsolatedParser } from "../../adapters/parsing/isolated-parser.ts";
import { parseCaptionBody } from "../../adapters/youtube/caption-formats.ts";
import { parseVideoReference } from "../../adapters/youtube/video-reference.ts";
import { chooseCaptionTrack } from "../caption-choice.ts";
import { generatedTranslationsOf, originalTrackOf } from "../caption-translations.ts";
import type { ItemMetadata } from "../item-metadata.ts";
import type {
  CaptionTrack,
  DownloadedAudio,
  DownloadOptions,
  PlatformSource,
  SourceCallOptions,
  SourceCaptions,
  SourceDetails,
  SourceRef,
} from "../platform-source.ts";
import { SourceError } from "../source-error.ts";
import { type EgressCalls, guardedCall } from "./guarded-call.ts";
import { detailsFromInfoDict, type InfoDict } from "./info-dict.ts";
import { metadataFromInfoDict } from "./info-dict-metadata.ts";
import { momentLinkOf, platformOfAddress, type YtdlpPlatform, ytdlpPlatforms } from "./ytdlp-platforms.ts";
import type { YtdlpCallOptions } from "./ytdlp-sidecar.ts";

/** What the source asks of yt-dlp; `proxy` is the egress guard's address for that one call. */
export interface YtdlpCalls {
  extract(url: string, options: YtdlpCallOptions): Promise<InfoDict>;
  fetchText(url: string, options: YtdlpCallOptions & { maxBytes: number }): Promise<string>;
  fetchTexts(urls: readonly string[], options: YtdlpCallOptions & { maxBytes: number }): Promise<string[]>;
  downloadAudio(
    url: string,
    directory: string,
    options: YtdlpCallOptions & { maxBytes: number },
  ): Promise<{ path: string; bytes: number }>;
}

export interface YtdlpSourceOptions {
  /** yt-dlp; null when it is not installed, and then every platform it reads is refused with `absentAdvice`. */
  engine: YtdlpCalls | null;
  /** How an operator enables yt-dlp, said to clients when it is absent. */
  absentAdvice: string;
  egress: EgressCalls;
  parser: IsolatedParser;
  /** The yt-dlp extractors allowed (`VERBATIM_YTDLP_EXTRACTORS`). */
  allowedExtractors: readonly string[];
  /** Milliseconds to read an item's details or captions; default 60 s. */
  resolveDeadlineMs?: number;
  /** Bytes of one caption file at most; default 10 MiB. */
  captionMaxBytes?: number;
  /** Bytes of one audio download at most, and the time it may take. */
  downloadMaxBytes: number;
  downloadTimeoutMs: number;
}

/**
 * Pieces of a caption playlist read at most: 50 minutes in 10 s pieces. Each is a request to the
 * platform, so a playlist of more is refused rather than read, or served cut short.
 */
const maxCaptionPieces = 300;

/** Digits of a bare TikTok id; YouTube's 11-character ids never match. */
const bareTiktokId = /^\d{18,20}$/;

/**
 * Every platform read through yt-dlp (TikTok, Instagram, X, Vimeo, Facebook, Dailymotion,
 * Twitch, Loom): one source, whatever the platform. Each call goes out through the egress guard
 * with limits of its own; signed media and caption addresses are used at once and never kept.
 */
export class YtdlpSource implements PlatformSource {
  readonly label = "the video platforms read through yt-dlp";
  readonly bareIds = "a TikTok video id";
  readonly readsAudio = true;
  private readonly resolveDeadlineMs: number;
  private readonly captionMaxBytes: number;

  constructor(private readonly options: YtdlpSourceOptions) {
    this.resolveDeadlineMs = options.resolveDeadlineMs ?? 60_000;
    this.captionMaxBytes = options.captionMaxBytes ?? 10 * 1024 * 1024;
  }

  match(input: string): SourceRef | null {
    const value = input.trim();
    if (bareTiktokId.test(value)) return { platform: "tiktok", url: `https://www.tiktok.com/@_/video/${value}` };
    const reference = parseVideoReference(value);
    // With credentials it is no platform's item: the public fetch refuses it without repeating them.
    if (reference.kind !== "other-url" || reference.url.username || reference.url.password) return null;
    const platform = platformOfAddress(reference.url);
    return platform ? { platform: platform.platform, url: reference.url.toString() } : null;
  }

  serves(platform: string): boolean {
    return ytdlpPlatforms.some((entry) => entry.platform === platform);
  }

  async resolve(ref: SourceRef, options: SourceCallOptions = {}): Promise<SourceDetails> {
    return detailsFromInfoDict(ref, await this.extract(ref, options));
  }

  async metadata(ref: SourceRef, options: SourceCallOptions = {}): Promise<ItemMetadata> {
    const info = await this.extract(ref, options);
    return metadataFromInfoDict(this, detailsFromInfoDict(ref, info), info);
  }

  captionTrack(details: SourceDetails, language: string | undefined): CaptionTrack | null {
    return chooseCaptionTrack(details.captions, language, details.language);
  }

  translations(details: SourceDetails, track: CaptionTrack): CaptionTrack[] {
    return generatedTranslationsOf(details, track, originalTrackOf(this, details));
  }

  untranslatable(): string | null {
    return null;
  }

  captionless(details: SourceDetails): SourceError {
    return new SourceError(
      "no_captions",
      `${details.url} has no captions on ${labelOf(details.ref)}. Speech recognition would transcribe it.`,
    );
  }

  /** The item resolved again: it is still there for whoever asks. */
  async mayServeKept(): Promise<boolean> {
    return true;
  }

  async captions(
    details: SourceDetails,
    track: CaptionTrack,
    options: SourceCallOptions = {},
  ): Promise<SourceCaptions | null> {
    const engine = this.engineFor(details.ref);
    const limits = { maxBytes: this.captionMaxBytes, deadlineMs: this.resolveDeadlineMs };
    const files = await this.throughGuard(details.ref, limits, async (proxy) => {
      const call = { proxy, ...limits, ...callerOf(options) };
      const first = await engine.fetchText(track.url, call);
      if (!first.startsWith("#EXTM3U")) return [first];
      // X lists its captions as an HLS playlist of WebVTT pieces: the track is their cues in turn.
      const pieces = captionPieces(details, first, track.url);
      return pieces.length === 0 ? [] : engine.fetchTexts(pieces, call);
    });
    const parsedFiles: TimedSegment[][] = [];
    for (const file of files) parsedFiles.push(await this.parseCaptions(details, track.format, file));
    // Flattened, not spread into push: a file of some 120,000 cues is more arguments than the stack holds.
    const segments = parsedFiles.flat();
    if (segments.length === 0) return null;
    return { language: track.language, kind: track.kind, segments };
  }

  /** A caller's own lower cap (an inline attempt) ends the download with `DownloadCapReached`, as other media's. */
  async download(ref: SourceRef, directory: string, options: DownloadOptions): Promise<DownloadedAudio> {
    const engine = this.engineFor(ref);
    const limits = {
      maxBytes: Math.min(options.maxBytes, this.options.downloadMaxBytes),
      deadlineMs: this.options.downloadTimeoutMs,
    };
    try {
      return await this.throughGuard(ref, limits, (proxy) =>
        engine.downloadAudio(ref.url, directory, { proxy, ...limits, ...callerOf(options) }),
      );
    } catch (error) {
      const capped = options.maxBytes < this.options.downloadMaxBytes;
      if (capped && error instanceof SourceError && error.kind === "too_large") {
        throw new DownloadCapReached(options.maxBytes);
      }
      throw error;
    }
  }

  linkAt(url: string, seconds: number): string {
    const platform = platformOfUrl(url);
    return platform ? momentLinkOf(url, platform.momentLink, seconds) : url;
  }

  /** The item's info dict, as yt-dlp prints it for `-J`. */
  private extract(ref: SourceRef, options: SourceCallOptions): Promise<InfoDict> {
    const engine = this.engineFor(ref);
    return this.throughGuard(ref, { maxBytes: 50 * 1024 * 1024, deadlineMs: this.resolveDeadlineMs }, (proxy) =>
      engine.extract(ref.url, { proxy, deadlineMs: this.resolveDeadlineMs, ...callerOf(options) }),
    );
  }

  /** yt-dlp for a platform this server reads, or the reason it does not. */
  private engineFor(ref: SourceRef): YtdlpCalls {
    const platform = ytdlpPlatforms.find((entry) => entry.platform === ref.platform);
    const label = labelOf(ref);
    if (!this.options.engine) {
      throw new SourceError(
        "unsupported",
        `${label} links need yt-dlp, which this server does not have. ${this.options.absentAdvice}`,
      );
    }
    if (!platform?.extractors.some((key) => this.options.allowedExtractors.includes(key))) {
      throw new SourceError(
        "unsupported",
        `This server does not read ${label}: its operator left it out of VERBATIM_YTDLP_EXTRACTORS.`,
      );
    }
    return this.options.engine;
  }

  /** Runs one yt-dlp call through its own guard call. */
  private throughGuard<T>(
    ref: SourceRef,
    limits: { maxBytes: number; deadlineMs: number },
    work: (proxy: string) => Promise<T>,
  ): Promise<T> {
    return guardedCall(
      this.options.egress,
      { url: ref.url, label: labelOf(ref) },
      limits,
      this.options.absentAdvice,
      work,
    );
  }

  private async parseCaptions(details: SourceDetails, format: string, body: string): Promise<TimedSegment[]> {
    if (format === "json3") {
      try {
        return parseCaptionBody(body);
      } catch (error) {
        throw new SourceError("unparseable", `The captions of ${details.url} do not parse.`, { cause: error });
      }
    }
    const parsed = await this.options.parser.parse(`The captions of ${details.url}`, "publisherTranscript", body, {
      declaredFormat: format === "srt" ? "srt" : "vtt",
      durationSeconds: details.durationSeconds,
    });
    if ("failure" in parsed)
      throw new SourceError("unparseable", `The captions of ${details.url} do not parse: ${parsed.failure}.`);
    return parsed.segments;
  }
}

/**
 * The pieces of a caption playlist: at most `maxCaptionPieces`, all on the playlist's own origin,
 * which one connection then reads; a playlist that breaks either rule is refused, not cut short.
 */
function captionPieces(details: SourceDetails, playlist: string, playlistUrl: string): string[] {
  const pieces = playlistEntries(playlist, playlistUrl);
  if (pieces.length > maxCaptionPieces) {
    throw new SourceError(
      "too_large",
      `The captions of ${details.url} come in ${pieces.length} pieces; this server reads at most ${maxCaptionPieces}.`,
    );
  }
  const { origin } = new URL(playlistUrl);
  const foreign = pieces.find((piece) => new URL(piece).origin !== origin);
  if (foreign) {
    throw new SourceError(
      "invalid_input",
      `The captions of ${details.url} list a piece on ${new URL(foreign).host}, not on their playlist's ${new URL(playlistUrl).host}.`,
    );
  }
  return pieces;
}

/** The addresses an HLS playlist lists, resolved against its own. */
function playlistEntries(playlist: string, playlistUrl: string): string[] {
  return playlist
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line.length > 0 && !line.startsWith("#"))
    .flatMap((line) => {
      try {
        return [new URL(line, playlistUrl).toString()];
      } catch {
        return [];
      }
    });
}

/** The platform's name as people write it (`TikTok`), for messages. */
function labelOf(ref: SourceRef): string {
  return ytdlpPlatforms.find((entry) => entry.platform === ref.platform)?.label ?? ref.platform;
}

function platformOfUrl(url: string): YtdlpPlatform | null {
  try {
    return platformOfAddress(new URL(url));
  } catch {
    return null;
  }
}

/** Who a yt-dlp call is for: the caller's signal, and the account whose share of yt-dlp it takes. */
function callerOf(options: SourceCallOptions): { signal?: AbortSignal; account?: string } {
  return {
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.accountId === undefined ? {} : { account: options.accountId }),
  };
}
