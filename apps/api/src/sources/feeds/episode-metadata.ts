import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AudioSources, ResolvedAudioSource } from "../../adapters/audio-sources/audio-source.ts";
import { probeMedia } from "../../adapters/media/decoder.ts";
import { chaptersFromStarts, type ItemMetadata, type ListedCaptionTrack } from "../item-metadata.ts";

/** BCP-47 for a language nobody stated: a publisher's transcript in a feed that declares none. */
const undeterminedLanguage = "und";

/** How an episode or media file is read. */
export interface EpisodeMetadataOptions {
  /** For a feed URL: the episode's guid or enclosure URL; default the newest episode. */
  episode?: string;
  signal?: AbortSignal;
  /** Where a media file is downloaded to be read; default the system's temporary directory. */
  workDir?: string;
}

/**
 * The metadata of a podcast episode or a media file. An episode found through its feed is what
 * the feed says (the item, its show) and its `podcast:chapters` file; a media address given as
 * it is (a file, an enclosure) is downloaded, within the server's download limits, and read by
 * ffmpeg: its length, its container's tags (title, artist, comment, date, genre) and chapters.
 * Failures are those of the audio sources.
 */
export async function episodeMetadata(
  sources: AudioSources,
  input: string,
  options: EpisodeMetadataOptions = {},
): Promise<ItemMetadata> {
  const signal = options.signal ? { signal: options.signal } : {};
  const source = await sources.resolve(input, { ...signal, ...(options.episode ? { episode: options.episode } : {}) });
  if (!source.notes) return mediaMetadata(sources, source, options);
  const chapters = await sources.chapters(source, signal);
  const duration = source.declaredDurationSeconds;
  return {
    ...common(source),
    description: source.notes.description,
    channel: { id: null, name: source.channel, url: source.notes.showUrl },
    durationSeconds: duration,
    publishedAt: source.podcast?.publishedAt ?? null,
    tags: source.notes.keywords,
    chapters: chaptersFromStarts(chapters, duration),
  };
}

/** A media file's metadata, read from the file itself. */
async function mediaMetadata(
  sources: AudioSources,
  source: ResolvedAudioSource,
  options: EpisodeMetadataOptions,
): Promise<ItemMetadata> {
  const directory = await mkdtemp(join(options.workDir ?? tmpdir(), "verbatim-metadata-"));
  try {
    const path = join(directory, "media");
    const signal = options.signal ? { signal: options.signal } : {};
    await sources.download(source.mediaUrl, path, signal);
    const { tags, chapters, duration } = await probeMedia(path, signal);
    return {
      ...common(source),
      title: tags.title ?? source.title,
      description: tags.comment ?? tags.description ?? null,
      channel: { id: null, name: tags.artist ?? tags.album_artist ?? source.channel, url: null },
      durationSeconds: duration,
      publishedAt: dateOf(tags.date ?? tags.creation_time),
      tags: tags.genre ? tags.genre.split(/[,;/]/).flatMap((genre) => genre.trim() || []) : [],
      chapters: chaptersFromStarts(chapters, duration),
    };
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

/** What an episode's and a file's metadata share. */
function common(source: ResolvedAudioSource): ItemMetadata {
  return {
    platform: source.platform,
    itemId: source.videoId,
    url: source.url,
    title: source.title,
    description: null,
    channel: { id: null, name: source.channel, url: null },
    durationSeconds: source.declaredDurationSeconds,
    publishedAt: null,
    language: source.language,
    tags: [],
    chapters: [],
    thumbnails: source.thumbnailUrl ? [{ url: source.thumbnailUrl, width: null, height: null }] : [],
    stats: null,
    // Episodes and files are recordings: whatever was live is over.
    liveStatus: "not_live",
    captions: publisherCaptionTracks(source),
    podcast: source.podcast,
  };
}

/**
 * The transcripts a podcast feed declares for the episode (`podcast:transcript`), one per
 * language (a feed often gives one transcript in several formats); none for a media file.
 */
export function publisherCaptionTracks(source: ResolvedAudioSource): ListedCaptionTrack[] {
  const tracks: ListedCaptionTrack[] = [];
  for (const link of source.publisherTranscripts) {
    const language = link.language ?? source.language ?? undeterminedLanguage;
    if (tracks.some((listed) => listed.language.toLowerCase() === language.toLowerCase())) continue;
    tracks.push({ language, name: null, kind: "publisher", translationTargets: [] });
  }
  return tracks;
}

/** A container's date tag: a year, a day or a moment (`1961`, `2024-08-01`, `2024-08-01T12:00:00Z`). */
function dateOf(value: string | undefined): Date | null {
  const text = value?.trim() ?? "";
  const day = /^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?$/.exec(text);
  const date = day
    ? new Date(Date.UTC(Number(day[1]), Number(day[2] ?? 1) - 1, Number(day[3] ?? 1)))
    : /^\d{4}-\d{2}-\d{2}T/.test(text)
      ? new Date(text)
      : null;
  return date && !Number.isNaN(date.getTime()) ? date : null;
}
