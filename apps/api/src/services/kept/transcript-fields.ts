import type { Schema } from "@verbatim/contract";
import type { PodcastDetails } from "../../adapters/audio-sources/audio-source.ts";
import type { ItemChapter } from "../../sources/item-metadata.ts";
import type { SourceCaptions, SourceDetails, SourceRef } from "../../sources/platform-source.ts";
import type { StoredItem, StoredTranscript } from "../../store/statements/deliver-stored.ts";
import type { LibraryDelivery } from "../../store/statements/library-entry.ts";
import { ingestedText, ingestedWords, type Word } from "../words/index.ts";
import type { FullTranscript } from "./transcript-store.ts";

/** Transcript fields without `text` / `segments`: what the source says, before any words. */
export type TranscriptFields = Omit<FullTranscript, "text" | "segments">;

type Segment = Schema<"Segment">;

/**
 * What a source says of an item, as the wire's transcript fields before any words: a speech
 * transcript's, in the language the engine hears (`spokenLanguage`, else the item's own), which
 * captions replace with theirs.
 */
export function fieldsOf(details: SourceDetails, spokenLanguage: string | null): TranscriptFields {
  return {
    kind: "transcript",
    video_id: details.itemId,
    url: details.url,
    platform: details.ref.platform,
    title: details.title,
    channel: details.channel,
    duration: details.durationSeconds,
    language: spokenLanguage ?? details.language,
    source: "audio",
    caption_kind: null,
    thumbnail_url: details.thumbnailUrl,
    ...(details.publishedAt === undefined ? {} : { published_at: details.publishedAt?.toISOString() ?? null }),
    speakers: null,
    speech_engine: null,
    ...chaptersField(details.chapters),
    ...podcastField(details.podcast),
  };
}

/**
 * The fields of an item served from the store before it is resolved again (`SourceRef.itemId`):
 * what its platform said when the transcript was kept, its chapters with them.
 */
export function keptFieldsOf(ref: SourceRef, stored: StoredTranscript): TranscriptFields {
  return {
    kind: "transcript",
    video_id: stored.videoId,
    url: ref.url,
    platform: ref.platform,
    title: stored.title,
    channel: stored.channel,
    duration: stored.durationSeconds,
    language: stored.language,
    source: "captions",
    caption_kind: null,
    thumbnail_url: stored.thumbnailUrl,
    speakers: null,
    speech_engine: null,
    ...chaptersField(stored.chapters ?? []),
  };
}

/** A transcript's `chapters`, present only when the item has some. */
function chaptersField(chapters: readonly ItemChapter[]): Pick<TranscriptFields, "chapters"> {
  return chapters.length > 0 ? { chapters: [...chapters] } : {};
}

/** What names an item in the store: where its source says, else its platform and id. */
export function storedItemOf(details: SourceDetails): StoredItem {
  return details.stored ?? { platform: details.ref.platform, item: details.itemId };
}

/** What names a delivery of these fields in the library. */
export function libraryDeliveryOf(fields: TranscriptFields, source: "captions" | "audio"): LibraryDelivery {
  return { platform: fields.platform, video_id: fields.video_id, url: fields.url, source };
}

/** Captions read from a source's track as the wire's transcript, over the item's fields. */
export function captionsTranscript(
  fields: TranscriptFields,
  captions: SourceCaptions,
  sourceLanguage: string | null,
): FullTranscript {
  const segments = captions.segments.map(roundedSegment);
  return {
    ...fields,
    language: captions.language,
    source: "captions",
    caption_kind: captions.kind,
    ...(captions.speakers ? { speakers: captions.speakers.map(ingestedText) } : {}),
    ...(sourceLanguage === null ? {} : { source_language: sourceLanguage }),
    segments,
    text: segments.map((segment) => segment.text).join(" "),
  };
}

/**
 * Kept captions as the wire's transcript, over the item's fields. The segments and the text are
 * read from the kept words only when read, so segments the store serialised are parsed only if
 * something needs them.
 */
export function keptCaptionsTranscript(fields: TranscriptFields, stored: StoredTranscript): FullTranscript {
  return withKeptWords(
    {
      ...fields,
      language: stored.language,
      source: "captions",
      caption_kind: stored.captionKind,
      ...(stored.sourceLanguage === null ? {} : { source_language: stored.sourceLanguage }),
    },
    stored,
  );
}

/** A kept speech transcript as the wire's, over the item's fields: its length, language and engine are the kept ones. */
export function keptSpeechTranscript(fields: TranscriptFields, stored: StoredTranscript): FullTranscript {
  return withKeptWords(
    {
      ...fields,
      duration: stored.durationSeconds === null ? null : roundedSeconds(stored.durationSeconds),
      language: stored.language,
      source: "audio",
      caption_kind: null,
      speech_engine: stored.speechEngine as FullTranscript["speech_engine"],
    },
    stored,
  );
}

/**
 * A wire segment: times to the millisecond, its text as the service keeps it, the speaker and the
 * words the source timed kept (the store keeps them; a response shows them when asked).
 */
export function roundedSegment(segment: {
  start: number;
  duration: number;
  text: string;
  speaker?: number;
  words?: Segment["words"];
}): Segment {
  return {
    start: roundedSeconds(segment.start),
    duration: roundedSeconds(segment.duration),
    text: ingestedText(segment.text),
    ...(segment.speaker === undefined ? {} : { speaker: segment.speaker }),
    ...(segment.words === undefined ? {} : { words: ingestedWords(segment.words) }),
  };
}

/** Seconds to the millisecond, as the wire gives every time. */
export function roundedSeconds(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}

/** The fields with the kept words, parsed when first read (`segments`, `text`). */
function withKeptWords(fields: TranscriptFields, stored: StoredTranscript): FullTranscript {
  let segments: Segment[] | undefined;
  let text: string | undefined;
  const segmentsOf = () => {
    segments ??= withStoredWords(JSON.parse(stored.segmentsJson) as Segment[], stored.segmentWordsJson);
    return segments;
  };
  return {
    ...fields,
    get segments() {
      return segmentsOf();
    },
    get text() {
      text ??= segmentsOf()
        .map((segment) => segment.text)
        .join(" ");
      return text;
    },
  };
}

/** The stored segments with the words the source timed (`segment_words`), where the statement read them. */
function withStoredWords(segments: Segment[], segmentWordsJson: string | null): Segment[] {
  if (segmentWordsJson === null) return segments;
  const words = JSON.parse(segmentWordsJson) as Array<Word[] | null>;
  return segments.map((segment, index) => {
    const timed = words[index];
    return timed ? { ...segment, words: timed } : segment;
  });
}

/** The wire's `podcast` block of an episode, and none for anything else. */
export function podcastField(podcast: PodcastDetails | null | undefined): { podcast?: Schema<"PodcastInfo"> } {
  if (!podcast) return {};
  return {
    podcast: {
      show: podcast.show,
      episode: podcast.episode,
      published_at: podcast.publishedAt?.toISOString() ?? null,
      feed_url: podcast.feedUrl,
      audio_url: podcast.audioUrl,
      resolved_via: podcast.resolvedVia,
    },
  };
}
