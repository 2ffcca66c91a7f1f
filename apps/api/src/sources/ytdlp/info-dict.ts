import { chaptersFromStarts } from "../item-metadata.ts";
import type { CaptionTrack, SourceDetails, SourceRef } from "../platform-source.ts";
import { SourceError } from "../source-error.ts";
import { httpAddress, isRecord, trimmedText } from "./info-dict-values.ts";
import { platformOfExtractor } from "./ytdlp-platforms.ts";

/** What `yt-dlp -J` prints: a loose record, read field by field and never trusted for its types. */
export type InfoDict = Record<string, unknown>;

/** Caption formats we parse, best first: the timed-text formats the platforms serve. */
const captionFormats = ["vtt", "srt", "json3"] as const;

/** Subtitle "languages" that are not captions: chat replays and danmaku. */
const notCaptions = new Set(["live_chat", "rechat", "danmaku", "comments"]);

/**
 * An item's details from yt-dlp's info dict. A playlist (a post with several videos) stands for
 * its first video. Live and upcoming items are refused here, before any caption or download.
 */
export function detailsFromInfoDict(ref: SourceRef, info: InfoDict): SourceDetails {
  const item = firstVideoOf(info);
  const liveStatus = trimmedText(item.live_status);
  if (item.is_live === true || liveStatus === "is_live" || liveStatus === "is_upcoming") {
    throw new SourceError(
      "live_stream",
      `${ref.url} is live or not started yet; there is nothing recorded to transcribe.`,
    );
  }
  const platform = platformOfExtractor(trimmedText(item.extractor_key) ?? "");
  const itemId = (platform?.itemIdFields ?? ["id"]).map((field) => trimmedText(item[field])).find(Boolean);
  if (!itemId) throw new SourceError("unparseable", `yt-dlp read ${ref.url} but found no id for it.`);
  const channel = (platform?.channelFields ?? ["uploader", "channel"])
    .map((field) => trimmedText(item[field]))
    .find(Boolean);
  return {
    ref,
    itemId,
    url: httpAddress(item.webpage_url) ?? ref.url,
    title: trimmedText(item.title) ?? trimmedText(item.fulltitle) ?? null,
    channel: channel ?? null,
    durationSeconds: positiveNumber(item.duration),
    publishedAt: publishedAtOf(item),
    language: languageTag(item.language),
    thumbnailUrl: httpAddress(item.thumbnail),
    captions: [
      ...tracksOf(item.subtitles, platform?.subtitlesKind ?? "manual"),
      ...tracksOf(item.automatic_captions, "auto"),
    ],
    declaredAudioBytes: positiveNumber(item.filesize) ?? positiveNumber(item.filesize_approx),
    chapters: chaptersOf(item.chapters, positiveNumber(item.duration)),
  };
}

/** yt-dlp's `chapters` (`[{start_time, end_time, title}]`), each ending where the next starts. */
function chaptersOf(value: unknown, durationSeconds: number | null) {
  if (!Array.isArray(value)) return [];
  const starts = value.flatMap((chapter) => {
    if (!isRecord(chapter)) return [];
    const title = trimmedText(chapter.title);
    const start = chapter.start_time;
    return title && typeof start === "number" ? [{ title, start }] : [];
  });
  return chaptersFromStarts(starts, durationSeconds);
}

/** The item an info dict stands for: itself, or a playlist's (a post with several videos') first video. */
export function firstVideoOf(info: InfoDict): InfoDict {
  if (info._type !== "playlist") return info;
  const [first] = Array.isArray(info.entries) ? info.entries : [];
  if (!isRecord(first)) throw new SourceError("unavailable", "The post holds no video.");
  return { extractor_key: info.extractor_key, ...first };
}

/** Each language's best parseable file; signed addresses stay in memory only. */
function tracksOf(value: unknown, kind: CaptionTrack["kind"]): CaptionTrack[] {
  if (!isRecord(value)) return [];
  const tracks: CaptionTrack[] = [];
  for (const [language, files] of Object.entries(value)) {
    // Vimeo lists its generated captions among the subtitles as `en-x-autogen` (the language is
    // the part before `-x-`); Facebook labels its tracks `en_US`.
    const tag = languageTag(language.replace(/-x-.*$/, "").replaceAll("_", "-"));
    const trackKind = language.endsWith("-x-autogen") ? "auto" : kind;
    if (notCaptions.has(language) || !tag || !Array.isArray(files)) continue;
    const offered = files.filter(isRecord);
    for (const format of captionFormats) {
      const file = offered.find((candidate) => trimmedText(candidate.ext) === format && httpAddress(candidate.url));
      if (file) {
        tracks.push({ language: tag, kind: trackKind, format, url: httpAddress(file.url) as string });
        break;
      }
    }
  }
  return tracks;
}

function publishedAtOf(item: InfoDict): Date | null {
  const seconds = positiveNumber(item.timestamp) ?? positiveNumber(item.release_timestamp);
  if (seconds !== null) return new Date(seconds * 1000);
  const day = /^(\d{4})(\d{2})(\d{2})$/.exec(trimmedText(item.upload_date) ?? "");
  if (!day) return null;
  const date = new Date(`${day[1]}-${day[2]}-${day[3]}T00:00:00Z`);
  return Number.isNaN(date.getTime()) ? null : date;
}

function positiveNumber(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : null;
}

/**
 * Three-letter (ISO 639-2) codes of common languages and their two-letter BCP-47 form: TikTok
 * labels its captions `eng-US`, where a client asks for `en`.
 */
const twoLetterCodes: Record<string, string> = {
  ara: "ar",
  chi: "zh",
  deu: "de",
  dut: "nl",
  eng: "en",
  fra: "fr",
  fre: "fr",
  ger: "de",
  hin: "hi",
  ind: "id",
  ita: "it",
  jpn: "ja",
  kor: "ko",
  nld: "nl",
  pol: "pl",
  por: "pt",
  rus: "ru",
  spa: "es",
  tha: "th",
  tur: "tr",
  ukr: "uk",
  vie: "vi",
  zho: "zh",
};

/** A BCP-47-shaped tag (`en`, `pt-BR`), its language in two letters where it has them; anything else is no language. */
function languageTag(value: unknown): string | null {
  const tag = trimmedText(value);
  if (!tag || tag.length > 35 || !/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(tag)) return null;
  const [language = "", ...rest] = tag.split("-");
  return [twoLetterCodes[language.toLowerCase()] ?? language, ...rest].join("-");
}
