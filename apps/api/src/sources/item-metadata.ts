import type { PodcastDetails } from "../adapters/audio-sources/audio-source.ts";

/** A titled stretch of an item's media, in seconds; `end` is null when the media's length is unknown. */
export interface ItemChapter {
  title: string;
  start: number;
  end: number | null;
}

/** A picture of an item in one size. */
export interface ItemThumbnail {
  url: string;
  width: number | null;
  height: number | null;
}

/** A caption track as `POST /transcripts/languages` lists it, in the source's terms. */
export interface ListedCaptionTrack {
  /** BCP-47. */
  language: string;
  /** Its name as the platform shows it; null where it gives none. */
  name: string | null;
  kind: "manual" | "auto" | "publisher";
  /** The languages the platform translates it into; empty when it does not. */
  translationTargets: Array<{ language: string; name: string | null }>;
}

/**
 * What a source says about one item, without its words: one shape whatever the source, as
 * yt-dlp's info dict is one shape whatever the site. Every field is present; null or empty
 * where the source does not say.
 */
export interface ItemMetadata {
  /** The wire's `platform`. */
  platform: string;
  /** The id a transcript of the item carries. */
  itemId: string;
  /** The canonical address of the item. */
  url: string | null;
  title: string | null;
  description: string | null;
  channel: { id: string | null; name: string | null; url: string | null };
  durationSeconds: number | null;
  publishedAt: Date | null;
  /** BCP-47 language the item is spoken in. */
  language: string | null;
  tags: string[];
  /** In order, each ending where the next starts. */
  chapters: ItemChapter[];
  /** Smallest first. */
  thumbnails: ItemThumbnail[];
  /** Null for sources that show no counts. */
  stats: { views: number | null; likes: number | null; comments: number | null } | null;
  liveStatus: "not_live" | "was_live" | null;
  /** The creator's tracks first. */
  captions: ListedCaptionTrack[];
  /** For a podcast episode: the show and episode the input resolved to. */
  podcast: PodcastDetails | null;
}

/** The longest title a chapter keeps: beyond it, the "title" is a paragraph of a description. */
const longestChapterTitle = 200;

/** The longest description line read as a chapter: a bound on the work of the pattern, not only on the title. */
const longestChapterLine = 300;

/** The most chapters an item keeps; a description or file listing more is cut there. */
const mostChapters = 500;

/**
 * Chapters from their starts: sorted, each ending where the next starts and the last at the end
 * of the media. Starts that are not finite, negative, past the end of the media or repeated are
 * dropped, and so are titles that are empty once trimmed: a source's chapters are hostile input.
 */
export function chaptersFromStarts(
  starts: ReadonlyArray<{ title: string; start: number }>,
  durationSeconds: number | null,
): ItemChapter[] {
  const kept = starts
    .map((chapter) => ({ title: chapter.title.trim().slice(0, longestChapterTitle), start: chapter.start }))
    .filter(
      (chapter) =>
        chapter.title.length > 0 &&
        Number.isFinite(chapter.start) &&
        chapter.start >= 0 &&
        (durationSeconds === null || chapter.start < durationSeconds),
    )
    .sort((a, b) => a.start - b.start)
    .filter((chapter, index, sorted) => index === 0 || chapter.start > (sorted[index - 1] as ItemChapter).start)
    .slice(0, mostChapters);
  return kept.map((chapter, index) => ({
    title: chapter.title,
    start: chapter.start,
    end: kept[index + 1]?.start ?? durationSeconds,
  }));
}

/**
 * Chapters a description lists as timestamps at the start of lines (`0:00 Intro`, `1:02:03 -
 * Outro`, `(12:30) Q&A`), as YouTube reads them: at least three, the first at 0:00, in
 * increasing order; otherwise the description has none.
 */
export function chaptersFromDescription(description: string | null, durationSeconds: number | null): ItemChapter[] {
  if (!description) return [];
  const listed: Array<{ title: string; start: number }> = [];
  for (const line of description.split(/\r?\n/)) {
    if (line.length > longestChapterLine) continue;
    const match = /^\s*[([]?((?:\d{1,2}:)?\d{1,2}:\d{2})[)\]]?\s*[-–—:|.]?\s*(.+)$/.exec(line);
    if (!match) continue;
    const start = secondsOf(match[1] as string);
    const previous = listed.at(-1);
    if (previous && start <= previous.start) return [];
    listed.push({ title: match[2] as string, start });
  }
  if (listed.length < 3 || listed[0]?.start !== 0) return [];
  return chaptersFromStarts(listed, durationSeconds);
}

/** `h:mm:ss` or `m:ss` in seconds. */
function secondsOf(timestamp: string): number {
  return timestamp.split(":").reduce((total, part) => total * 60 + Number(part), 0);
}

/** A count a platform gives as a number or a string of digits; null for anything else. */
export function countOf(value: unknown): number | null {
  const count = typeof value === "string" && /^\d{1,15}$/.test(value) ? Number(value) : value;
  return typeof count === "number" && Number.isSafeInteger(count) && count >= 0 ? count : null;
}
