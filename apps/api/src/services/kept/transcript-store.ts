import type { Schema } from "@verbatim/contract";
import { and, asc, eq, sql } from "drizzle-orm";
import type { ItemChapter } from "../../sources/item-metadata.ts";
import type { DatabaseOrTransaction, Store } from "../../store/database.ts";
import { captionChoices, storedTranscripts } from "../../store/schema.ts";
import type { CaptionChoice, StoredItem } from "../../store/statements/deliver-stored.ts";
import { contentHashOf } from "../../store/statements/library-entry.ts";
import type { Word } from "../words/index.ts";

export type { CaptionChoice, StoredItem } from "../../store/statements/deliver-stored.ts";

/** A finished transcript with both `text` and `segments`, as jobs and the store hold it. */
export type FullTranscript = Schema<"FullTranscript">;

/** A segment as the store keeps it: the words the source timed are kept beside the segments. */
type KeptSegment = { start: number; duration: number; text: string; speaker?: number; words?: Word[] };

/** A caption track to keep: what its platform said of the item, and its words. */
export interface KeptCaptions {
  title: string | null;
  channel: string | null;
  durationSeconds: number | null;
  thumbnailUrl: string | null;
  language: string | null;
  captionKind: "manual" | "auto" | null;
  /** For a translation: the language of the track it came from; null for a track as it is. */
  sourceLanguage: string | null;
  /** The item's chapters, kept so a store hit answers them; empty when it has none. */
  chapters: readonly ItemChapter[];
  segments: readonly KeptSegment[];
}

/** A speech transcript kept for reuse: the media's duration prices every later delivery. */
export interface KeptSpeech {
  durationSeconds: number;
  transcript: FullTranscript;
}

/** A kept speech transcript as found: its row, the length that prices it, and what its platform said of it then. */
export interface KeptSpeechRow {
  id: number;
  durationSeconds: number;
  title: string | null;
  channel: string | null;
}

/** The engine that recognised a transcript, as the wire's `speech_engine` names it. */
interface EngineName {
  engine: string;
  model: string;
}

/**
 * Every transcript kept to be served again (`stored_transcripts`), captions or speech, whatever
 * the platform: one per platform, item, language and kind. A repeat is served from here by one
 * statement (`deliverStored`); this keeps what was fetched or made, and finds speech transcripts,
 * whose length prices their delivery. Another engine or model makes another speech transcript;
 * another decoding of the same model does not, so changing `VERBATIM_ASR_DECODING` keeps the
 * store: a kept transcript's `speech_engine.decoding` says how it was made.
 */
export class TranscriptStore {
  constructor(
    private readonly store: Store,
    private readonly now: () => Date,
  ) {}

  /** The kind a speech transcript of this engine is kept as. */
  static speechModelOf(engine: EngineName): string {
    return `${engine.engine}:${engine.model}`;
  }

  /**
   * Keeps a caption track, replacing what was kept of the same track, and (for an item served
   * before it is resolved again) the request's choice it answers.
   */
  async keepCaptions(item: StoredItem, captions: KeptCaptions, choice?: CaptionChoice): Promise<void> {
    const row = {
      ...rowOf(item, captions.language, captions.segments, this.now()),
      captionKind: captions.captionKind,
      sourceLanguage: captions.sourceLanguage,
      title: captions.title,
      channel: captions.channel,
      durationSeconds: captions.durationSeconds,
      thumbnailUrl: captions.thumbnailUrl,
      chapters: [...captions.chapters],
    };
    await this.store.db.transaction(async (tx) => {
      const [track] = await tx
        .insert(storedTranscripts)
        .values(row)
        .onConflictDoUpdate({ target: keyColumns, set: row })
        .returning({ id: storedTranscripts.id });
      if (!track) throw new Error(`storing the captions of ${item.platform}:${item.item} returned no row`);
      if (!choice) return;
      await tx
        .insert(captionChoices)
        .values({ platform: item.platform, videoId: item.item, ...choice, transcriptId: track.id })
        .onConflictDoUpdate({
          target: [
            captionChoices.platform,
            captionChoices.videoId,
            captionChoices.requestedLanguage,
            captionChoices.translateTo,
          ],
          set: { transcriptId: track.id },
        });
    });
  }

  /** The speech transcript the engine's model made of the item, and the length that prices it; null when none was. */
  async findSpeech(item: StoredItem, speechModel: string): Promise<KeptSpeechRow | null> {
    const [row] = await this.store.db
      .select({
        id: storedTranscripts.id,
        durationSeconds: storedTranscripts.durationSeconds,
        title: storedTranscripts.title,
        channel: storedTranscripts.channel,
      })
      .from(storedTranscripts)
      .where(
        and(
          eq(storedTranscripts.platform, item.platform),
          eq(storedTranscripts.videoId, item.item),
          eq(storedTranscripts.speechModel, speechModel),
        ),
      )
      .orderBy(asc(storedTranscripts.id))
      .limit(1);
    return row && row.durationSeconds !== null ? { ...row, durationSeconds: row.durationSeconds } : null;
  }

  /** Keeps a speech transcript, in `db` (a transaction, so it commits with the job that made it); the first one made stays. */
  async keepSpeech(item: StoredItem, kept: KeptSpeech, db: DatabaseOrTransaction = this.store.db): Promise<void> {
    const { transcript } = kept;
    const engine = transcript.speech_engine;
    if (!engine) throw new Error(`the speech transcript of ${item.platform}:${item.item} names no engine`);
    await db
      .insert(storedTranscripts)
      .values({
        ...rowOf(item, transcript.language, transcript.segments, this.now()),
        speechModel: TranscriptStore.speechModelOf(engine),
        speechEngine: { ...engine },
        title: transcript.title,
        channel: transcript.channel,
        durationSeconds: kept.durationSeconds,
        thumbnailUrl: transcript.thumbnail_url,
        chapters: transcript.chapters ?? [],
      })
      .onConflictDoNothing();
  }
}

/** The store's key: what makes two rows the same transcript. */
const keyColumns = [
  storedTranscripts.platform,
  storedTranscripts.videoId,
  storedTranscripts.language,
  storedTranscripts.captionKind,
  storedTranscripts.sourceLanguage,
  storedTranscripts.speechModel,
];

/** The words of a row: the segments without their words, the words beside them, and what is measured of both once. */
function rowOf(item: StoredItem, language: string | null, segments: readonly KeptSegment[], fetchedAt: Date) {
  const timed = segments.some((segment) => segment.words !== undefined);
  return {
    platform: item.platform,
    videoId: item.item,
    language,
    segments: segments.map(({ words: _kept, ...segment }) => segment),
    segmentWords: timed ? segments.map((segment) => segment.words ?? null) : null,
    // Hashed with the words, as the library hashes the transcript delivered: its passages keep their times.
    contentHash: contentHashOf(sql`${language}::text`, sql`${JSON.stringify(segments)}::jsonb`),
    textBytes: Buffer.byteLength(segments.map((segment) => segment.text).join(" ")),
    fetchedAt,
  };
}
