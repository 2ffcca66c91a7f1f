import { join } from "node:path";
import {
  type AudioSources,
  mediaPlatformOf,
  type PublisherTranscriptLink,
  type ResolvedAudioSource,
} from "../../adapters/audio-sources/index.ts";
import { parseVideoReference } from "../../adapters/youtube/video-reference.ts";
import { chooseCaptionTrack } from "../caption-choice.ts";
import { episodeMetadata } from "../feeds/episode-metadata.ts";
import { chaptersFromStarts, type ItemMetadata } from "../item-metadata.ts";
import type {
  CaptionTrack,
  DownloadedAudio,
  DownloadOptions,
  PlatformSource,
  ResolveOptions,
  SourceCallOptions,
  SourceCaptions,
  SourceDetails,
  SourceRef,
} from "../platform-source.ts";
import { SourceError } from "../source-error.ts";

/** The wire's platforms of what the web serves. */
const platforms: readonly string[] = ["podcast", "file"];

/** BCP-47 for a language nobody stated: a publisher's transcript in a feed that declares none. */
const undeterminedLanguage = "und";

/** What the web resolved an item to, and the publisher's transcript each of its tracks is. */
interface Resolved {
  source: ResolvedAudioSource;
  links: Map<CaptionTrack, PublisherTranscriptLink>;
}

/**
 * The web, a member of the source registry and the last it asks: any other http(s) address, read
 * as a podcast episode page, a feed (or a feed's episode), a media file, or an Apple Podcasts or
 * Spotify episode link (`withPodcastLinks`). Its tracks are the publisher's transcripts, best
 * first; its media is downloaded by address, so a transcript kept of it is kept under that
 * address, and goes only to a request that can still reach the media.
 */
export class WebSource implements PlatformSource {
  readonly label = "podcasts, feeds and media files";
  readonly bareIds = null;
  readonly readsAudio = true;
  private readonly resolved = new WeakMap<SourceDetails, Resolved>();

  constructor(private readonly sources: AudioSources) {}

  match(input: string): SourceRef | null {
    const reference = parseVideoReference(input);
    return reference.kind === "other-url" ? { platform: "podcast", url: reference.url.href } : null;
  }

  serves(platform: string): boolean {
    return platforms.includes(platform);
  }

  async resolve(ref: SourceRef, options: ResolveOptions = {}): Promise<SourceDetails> {
    const signal = options.signal ? { signal: options.signal } : {};
    const source = await this.sources.resolve(ref.url, {
      ...(options.episode === undefined ? {} : { episode: options.episode }),
      ...signal,
    });
    const chapters = chaptersFromStarts(await this.sources.chapters(source, signal), source.declaredDurationSeconds);
    const links = new Map<CaptionTrack, PublisherTranscriptLink>();
    const captions = source.publisherTranscripts.map((link): CaptionTrack => {
      const track: CaptionTrack = {
        language: link.language ?? source.language ?? undeterminedLanguage,
        kind: "publisher",
        format: link.type,
        url: link.url,
      };
      links.set(track, link);
      return track;
    });
    const mediaUrl = new URL(source.mediaUrl);
    const details: SourceDetails = {
      ref: { platform: source.platform, url: ref.url },
      itemId: source.videoId,
      url: source.url,
      title: source.title,
      channel: source.channel,
      durationSeconds: source.declaredDurationSeconds,
      language: source.language,
      thumbnailUrl: source.thumbnailUrl,
      captions,
      declaredAudioBytes: source.declaredBytes,
      chapters,
      ...(source.podcast ? { podcast: source.podcast } : {}),
      stored: { platform: mediaPlatformOf(mediaUrl), item: mediaUrl.href },
      media: { platform: source.platform, url: mediaUrl.href },
    };
    this.resolved.set(details, { source, links });
    return details;
  }

  captionTrack(details: SourceDetails, language: string | undefined): CaptionTrack | null {
    return chooseCaptionTrack(details.captions, language, details.language);
  }

  translations(): CaptionTrack[] {
    return [];
  }

  untranslatable(ref: SourceRef): string {
    return `${new URL(ref.url).hostname} is a podcast, feed or media file: only captions can be translated, and a publisher's transcript or speech recognition cannot be.`;
  }

  captionless(details: SourceDetails): SourceError {
    return new SourceError(
      "no_captions",
      `${details.url} comes with no transcript from its publisher. Speech recognition would transcribe it.`,
    );
  }

  /** The chosen transcript, else the next of the publisher's that answers and parses; null when none does. */
  async captions(
    details: SourceDetails,
    track: CaptionTrack,
    options: SourceCallOptions = {},
  ): Promise<SourceCaptions | null> {
    const { source, links } = this.resolvedOf(details);
    const chosen = links.get(track);
    const ordered = chosen ? [chosen, ...source.publisherTranscripts.filter((link) => link !== chosen)] : [];
    const published = await this.sources.publisherTranscript(
      { ...source, publisherTranscripts: ordered },
      options.signal ? { signal: options.signal } : {},
    );
    if (!published) return null;
    return {
      language: published.language,
      kind: "publisher",
      segments: published.segments,
      speakers: published.speakers,
    };
  }

  /**
   * Whether the media still answers this request at its address: an address may be a capability
   * (`?token=...`) another account lists without holding it.
   */
  mayServeKept(details: SourceDetails, options: SourceCallOptions = {}): Promise<boolean> {
    const mediaUrl = details.media?.url ?? this.resolvedOf(details).source.mediaUrl;
    return this.sources.isReachable(mediaUrl, options.signal ? { signal: options.signal } : {});
  }

  async download(media: SourceRef, directory: string, options: DownloadOptions): Promise<DownloadedAudio> {
    const path = join(directory, "media");
    const { bytes } = await this.sources.download(media.url, path, {
      maxBytes: options.maxBytes,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    return { path, bytes };
  }

  /** What the feed says of an episode, or what a media file's container says of it (`episode-metadata.ts`). */
  metadata(ref: SourceRef, options: SourceCallOptions = {}): Promise<ItemMetadata> {
    return episodeMetadata(this.sources, ref.url, options.signal ? { signal: options.signal } : {});
  }

  /** A media fragment (W3C Media Fragments): players that read it open there. */
  linkAt(url: string, seconds: number): string {
    return `${url.split("#")[0]}#t=${Math.floor(seconds)}`;
  }

  private resolvedOf(details: SourceDetails): Resolved {
    const resolved = this.resolved.get(details);
    if (!resolved) throw new Error(`${details.url} was not resolved by this source`);
    return resolved;
  }
}
