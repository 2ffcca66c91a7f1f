import { join } from "node:path";
import type {
  CaptionListing,
  CaptionSource,
  RoutedStream,
  TranslationLanguage,
  VideoPageSource,
  YoutubeAudioSource,
  CaptionTrack as YoutubeTrack,
} from "../../adapters/youtube/index.ts";
import { translationTargetsOf } from "../../adapters/youtube/index.ts";
import { VideoUnavailableError } from "../../adapters/youtube/upstream-errors.ts";
import { parseVideoReference } from "../../adapters/youtube/video-reference.ts";
import { chooseCaptionTrack } from "../caption-choice.ts";
import { chaptersFromDescription, type ItemMetadata } from "../item-metadata.ts";
import type {
  CaptionTrack,
  DownloadedAudio,
  DownloadOptions,
  PlatformSource,
  ResolveOptions,
  SourceCaptions,
  SourceDetails,
  SourceRef,
} from "../platform-source.ts";
import { SourceError } from "../source-error.ts";
import { youtubeMetadata } from "./youtube-metadata.ts";

/** The wire's name of the platform. */
const platform = "youtube";

/**
 * YouTube's ports: its caption tracks, and (where speech recognition runs) its audio streams.
 * Without captions the source still knows YouTube's addresses, and refuses them.
 */
export interface YoutubeSourceOptions {
  captions?: CaptionSource;
  /** Audio streams of videos; without them, their audio is not read. */
  audio?: YoutubeAudioSource;
  /** Videos' pages, for their metadata; without them, a video's metadata is refused. */
  pages?: VideoPageSource;
}

/** What a resolved video is to YouTube: its listing, and the audio stream a request resolved. */
interface Resolved {
  listing: CaptionListing;
  stream?: RoutedStream;
}

/** A track as YouTube lists it, and the language of its translation when it is one. */
interface ListedTrack {
  track: YoutubeTrack;
  translation?: TranslationLanguage;
}

/** The address a YouTube transcript names: the watch page. */
function youtubeWatchUrl(videoId: string): string {
  return `https://www.youtube.com/watch?v=${videoId}`;
}

/**
 * YouTube through youtubei.js, a member of the source registry: a video's caption tracks from
 * the player response, the chosen track's words (or YouTube's translation of it), and its audio
 * stream for speech recognition. A video is one item whichever address names it, shown to all
 * alike, so its kept transcripts are served before it is resolved again (`SourceRef.itemId`).
 */
export class YoutubeSource implements PlatformSource {
  readonly label = "YouTube";
  readonly bareIds = "a YouTube video id";
  private readonly resolved = new WeakMap<SourceDetails, Resolved>();
  private readonly listed = new WeakMap<CaptionTrack, ListedTrack>();

  constructor(private readonly options: YoutubeSourceOptions) {}

  get readsAudio(): boolean {
    return this.options.audio !== undefined;
  }

  match(input: string): SourceRef | SourceError | null {
    const reference = parseVideoReference(input);
    if (reference.kind === "youtube") {
      if (!this.options.captions) return new SourceError("unsupported", "YouTube is not configured on this server.");
      return { platform, url: youtubeWatchUrl(reference.videoId), itemId: reference.videoId };
    }
    if (reference.kind === "youtube-without-video") {
      return new SourceError("invalid_input", `"${input}" is a YouTube address but names no video.`);
    }
    return null;
  }

  serves(name: string): boolean {
    return name === platform;
  }

  /** For speech, the video's audio stream through a route of its own (its address works only from there); else its tracks. */
  async resolve(ref: SourceRef, options: ResolveOptions = {}): Promise<SourceDetails> {
    const videoId = videoIdOf(ref);
    const { audio } = this.options;
    if (options.purpose === "speech" && audio) {
      const resolved = await audio.resolveAudio(videoId);
      const listing: CaptionListing = {
        details: resolved.details,
        tracks: [],
        captionsMissing: false,
        defaultTrackIndex: null,
        translationLanguages: [],
      };
      return this.detailsOf(videoId, listing, resolved.stream);
    }
    return this.detailsOf(videoId, await this.captionSource().listCaptions(videoId));
  }

  captionTrack(details: SourceDetails, language: string | undefined): CaptionTrack | null {
    return chooseCaptionTrack(details.captions, language, details.language);
  }

  /** YouTube translates a translatable track into every language it lists but the track's own. */
  translations(details: SourceDetails, track: CaptionTrack): CaptionTrack[] {
    const listed = this.listed.get(track);
    const { listing } = this.resolvedOf(details);
    if (!listed || listed.translation) return [];
    return translationTargetsOf(listed.track, listing.translationLanguages).map((translation) =>
      this.registered(
        {
          language: translation.languageCode,
          kind: "auto",
          format: "timedtext",
          url: `${listed.track.baseUrl}&tlang=${encodeURIComponent(translation.languageCode)}`,
          name: translation.languageName,
        },
        { track: listed.track, translation },
      ),
    );
  }

  untranslatable(): string | null {
    return null;
  }

  /** A past live stream keeps no captions; otherwise the uploader turned them off or never had any. */
  captionless(details: SourceDetails): SourceError {
    const { listing } = this.resolvedOf(details);
    if (listing.details.wasLive) {
      return new VideoUnavailableError(
        "was_live",
        `Video ${listing.details.videoId} is a past live stream without captions.`,
      );
    }
    if (listing.captionsMissing) {
      return new VideoUnavailableError(
        "captions_disabled",
        `Captions are disabled for video ${listing.details.videoId}.`,
      );
    }
    return new VideoUnavailableError("no_captions", `Video ${listing.details.videoId} has no caption track.`);
  }

  async captions(details: SourceDetails, track: CaptionTrack): Promise<SourceCaptions | null> {
    const listed = this.listed.get(track);
    if (!listed) throw new Error(`the track ${track.url} is not one of video ${details.itemId}'s`);
    const read = await this.captionSource().readCaptions(
      this.resolvedOf(details).listing,
      listed.track,
      listed.translation,
    );
    return { language: read.language, kind: read.captionKind, segments: read.segments };
  }

  async mayServeKept(): Promise<boolean> {
    return true;
  }

  /** The stream a request resolved for speech, else the video's audio resolved now (a job's, hours later). */
  async download(media: SourceRef, directory: string, options: DownloadOptions): Promise<DownloadedAudio> {
    const { audio } = this.options;
    if (!audio) throw new SourceError("unsupported", "This server does not transcribe the audio of YouTube videos.");
    const resolvedStream = options.resolved ? this.resolved.get(options.resolved)?.stream : undefined;
    const stream = resolvedStream ?? (await audio.resolveAudio(videoIdOf(media))).stream;
    const path = join(directory, "media");
    const { bytes } = await audio.download(stream, path, {
      maxBytes: options.maxBytes,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    return { path, bytes };
  }

  /** What the video's page says of it (`youtube-metadata.ts`). */
  async metadata(ref: SourceRef): Promise<ItemMetadata> {
    const { pages } = this.options;
    if (!pages) throw new SourceError("unsupported", "This server reads no metadata of YouTube videos.");
    return youtubeMetadata(pages, videoIdOf(ref));
  }

  /** The watch page at `t=<seconds>s`. */
  linkAt(url: string, seconds: number): string {
    const link = new URL(url);
    link.searchParams.set("t", `${Math.floor(seconds)}s`);
    return link.toString();
  }

  /** The video as the request named it (`videoId`), and as its player response describes it. */
  private detailsOf(videoId: string, listing: CaptionListing, stream?: RoutedStream): SourceDetails {
    const { details: video } = listing;
    const details: SourceDetails = {
      ref: { platform, url: youtubeWatchUrl(videoId), itemId: videoId },
      itemId: videoId,
      url: youtubeWatchUrl(videoId),
      title: video.title,
      channel: video.channel,
      durationSeconds: video.durationSeconds,
      language: originalLanguageOf(listing.tracks, listing.defaultTrackIndex),
      thumbnailUrl: video.thumbnailUrl,
      captions: listing.tracks.map((track) => this.trackOf(track)),
      declaredAudioBytes: stream?.contentLength ?? null,
      chapters: chaptersFromDescription(video.description, video.durationSeconds),
    };
    this.resolved.set(details, stream ? { listing, stream } : { listing });
    return details;
  }

  private trackOf(track: YoutubeTrack): CaptionTrack {
    return this.registered(
      { language: track.language, kind: track.kind, format: "timedtext", url: track.baseUrl, name: track.name },
      { track },
    );
  }

  /** A track of the port, remembered as the listed track (and translation) it reads. */
  private registered(track: CaptionTrack, listed: ListedTrack): CaptionTrack {
    this.listed.set(track, listed);
    return track;
  }

  private captionSource(): CaptionSource {
    const { captions } = this.options;
    if (!captions) throw new SourceError("unsupported", "YouTube is not configured on this server.");
    return captions;
  }

  private resolvedOf(details: SourceDetails): Resolved {
    const resolved = this.resolved.get(details);
    if (!resolved) throw new Error(`video ${details.itemId} was not resolved by this source`);
    return resolved;
  }
}

/**
 * The language a video is spoken in, as its tracks tell: the one YouTube's speech recognition
 * ran on (its automatic track's), else the default track's; null when neither says.
 */
export function originalLanguageOf(tracks: readonly YoutubeTrack[], defaultTrackIndex: number | null): string | null {
  const automatic = tracks.find((track) => track.kind === "auto");
  const defaultTrack = defaultTrackIndex === null ? undefined : tracks[defaultTrackIndex];
  return automatic?.language ?? defaultTrack?.language ?? null;
}

function videoIdOf(ref: SourceRef): string {
  if (ref.itemId) return ref.itemId;
  const reference = parseVideoReference(ref.url);
  if (reference.kind !== "youtube") throw new SourceError("invalid_input", `${ref.url} names no YouTube video.`);
  return reference.videoId;
}
