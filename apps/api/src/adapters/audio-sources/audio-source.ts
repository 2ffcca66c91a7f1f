import type { DownloadOptions } from "../net/media-download.ts";
import type { TimedWord } from "../parsing/words.ts";

/** One timed piece of an audio transcript; `speaker` indexes the transcript's `speakers`. */
export interface TimedSegment {
  start: number;
  duration: number;
  text: string;
  speaker?: number;
  /** Its words as the source timed them (WebVTT cue timestamps); absent where it timed none. */
  words?: TimedWord[];
}

/** A transcript the publisher ships with the episode (`podcast:transcript`). */
export interface PublisherTranscript {
  /** BCP-47, as the feed declares it; null when it does not. */
  language: string | null;
  segments: TimedSegment[];
  /** Speaker labels in order of first appearance; null when the format gave none. */
  speakers: string[] | null;
  /** Where it was read from, and in which format. */
  url: string;
  format: "srt" | "vtt" | "json" | "html" | "text";
}

/** Which show and episode a podcast input resolved to (the wire's `podcast` block, in camelCase). */
export interface PodcastDetails {
  show: string | null;
  episode: string | null;
  publishedAt: Date | null;
  feedUrl: string | null;
  audioUrl: string;
  /** How the input led to the episode (the wire's `resolved_via`). */
  resolvedVia: PodcastResolution;
}

/**
 * How an input led to its episode: `apple` (Apple's directory), `spotify` (a Spotify episode's
 * show, found in Apple's directory), `page` (an episode page's feed), `rss` (a feed given as is),
 * `direct` (an enclosure given as is).
 */
export type PodcastResolution = "apple" | "spotify" | "rss" | "page" | "direct";

/** A `podcast:transcript` link of an episode, not fetched yet. */
export interface PublisherTranscriptLink {
  url: string;
  /** The declared MIME type, e.g. `application/x-subrip`, `text/vtt`, `application/json`, `text/html`. */
  type: string;
  language: string | null;
  /** `captions` when the feed says the file is timed captions. */
  rel: string | null;
}

/** What a feed says of an episode beyond what a transcript needs. */
export interface EpisodeNotes {
  /** The show notes, as plain text. */
  description: string | null;
  keywords: string[];
  /** The show's web page. */
  showUrl: string | null;
  /** The `podcast:chapters` file. */
  chaptersUrl: string | null;
}

/** A chapter as an episode's chapters file gives it, in seconds. */
export interface EpisodeChapter {
  title: string;
  start: number;
}

/** A non-YouTube input, resolved to the media behind it and what is known about it. */
export interface ResolvedAudioSource {
  platform: "podcast" | "file";
  /** The stable id the transcript's `video_id` carries, derived from the media (or episode) address. */
  videoId: string;
  /** The canonical address of the source: the episode page or the media file. */
  url: string;
  title: string | null;
  /** The show or the uploader. */
  channel: string | null;
  /** The duration the publisher declares (`itunes:duration`); the media probe has the last word. */
  declaredDurationSeconds: number | null;
  /** The media's size as its server declares it (`Content-Length` of a media address given directly); null when unknown. */
  declaredBytes: number | null;
  thumbnailUrl: string | null;
  /** The language the feed declares; null when unknown. */
  language: string | null;
  /** The audio or video file to transcribe. */
  mediaUrl: string;
  podcast: PodcastDetails | null;
  /** The publisher's transcripts, best first. */
  publisherTranscripts: PublisherTranscriptLink[];
  /** What the feed says of the episode; null for a media address given as is. */
  notes: EpisodeNotes | null;
}

/** What a download wrote. */
export interface DownloadedMedia {
  bytes: number;
  contentType: string | null;
}

/**
 * Podcasts, feeds and media files. Every address it fetches obeys the public-address rule
 * (unless the operator lifted it), on every redirect and on the address actually connected.
 * Failures are `SourceError`s: `unsupported`, `invalid_input`,
 * `podcast_feed_not_found`, `upstream_error`, `timeout`, `connection`, `parse_error`.
 */
export interface AudioSources {
  /** Classifies and resolves an input that is not YouTube; `episode` picks a feed's episode (guid or enclosure URL). */
  resolve(input: string, options?: { episode?: string; signal?: AbortSignal }): Promise<ResolvedAudioSource>;
  /** Fetches and parses the best publisher transcript of a source; null when it has none that parses. */
  publisherTranscript(
    source: ResolvedAudioSource,
    options?: { signal?: AbortSignal },
  ): Promise<PublisherTranscript | null>;
  /**
   * The chapters of the episode's `podcast:chapters` file (JSON chapters), in its order; empty
   * when it has none, or when the file cannot be fetched or read (logged).
   */
  chapters(source: ResolvedAudioSource, options?: { signal?: AbortSignal }): Promise<EpisodeChapter[]>;
  /**
   * Whether the media still answers the asker at this address, under the address rule: a HEAD,
   * or a one-byte ranged GET where HEAD is refused. Any failure answers false.
   */
  isReachable(mediaUrl: string, options?: { signal?: AbortSignal }): Promise<boolean>;
  /** Streams a media file to `destinationPath`, within the size and time limits. */
  download(mediaUrl: string, destinationPath: string, options?: DownloadOptions): Promise<DownloadedMedia>;
}
