import type { Schema } from "@verbatim/contract";
import { eq } from "drizzle-orm";
import type { SpeechEngineInfo } from "../adapters/asr/index.ts";
import type { DatabaseOrTransaction, Store } from "../store/database.ts";
import { audioTranscripts } from "../store/schema.ts";

/** A finished transcript with both `text` and `segments`, as jobs and the store hold it. */
export type FullTranscript = Schema<"FullTranscript">;

/** A speech transcript kept for reuse: the media's duration prices every later delivery. */
export interface StoredSpeechTranscript {
  durationSeconds: number;
  transcript: FullTranscript;
}

/**
 * Speech transcripts already made, by media address and engine: the same media asked for again
 * (by anyone, through any feed or link) is served from here, without transcribing it twice.
 * Another engine or model makes another transcript; another decoding of the same model does not,
 * so changing `VERBATIM_ASR_DECODING` keeps the store: a kept transcript's `speech_engine.decoding`
 * says how it was made.
 */
export class AudioTranscriptStore {
  constructor(private readonly store: Store) {}

  static keyOf(mediaUrl: string, engine: SpeechEngineInfo): string {
    return `speech:${engine.engine}:${engine.model}:${mediaUrl}`;
  }

  /** A platform's caption track of one item: one stored transcript per platform, item, language and kind. */
  static captionsKeyOf(platform: string, itemId: string, track: { language: string; kind: string }): string {
    return `captions:${platform}:${itemId}:${track.language}:${track.kind}`;
  }

  /** Keeps a caption track (`captionsKeyOf`); the first one stored stays. */
  async saveCaptions(key: string, transcript: FullTranscript): Promise<void> {
    await this.store.db
      .insert(audioTranscripts)
      .values({
        sourceKey: key,
        platform: transcript.platform,
        durationSeconds: transcript.duration,
        transcript: transcript as unknown as Record<string, unknown>,
      })
      .onConflictDoNothing();
  }

  /** A stored caption track (`captionsKeyOf`). */
  async findCaptions(key: string): Promise<FullTranscript | null> {
    const [row] = await this.store.db.select().from(audioTranscripts).where(eq(audioTranscripts.sourceKey, key));
    return row ? (row.transcript as FullTranscript) : null;
  }

  async find(key: string): Promise<StoredSpeechTranscript | null> {
    const [row] = await this.store.db.select().from(audioTranscripts).where(eq(audioTranscripts.sourceKey, key));
    if (!row || row.durationSeconds === null) return null;
    return { durationSeconds: row.durationSeconds, transcript: row.transcript as FullTranscript };
  }

  /** Keeps a transcript, in `db` (a transaction, so it commits with the job that made it); the first one made stays. */
  async save(key: string, entry: StoredSpeechTranscript, db: DatabaseOrTransaction = this.store.db): Promise<void> {
    await db
      .insert(audioTranscripts)
      .values({
        sourceKey: key,
        platform: entry.transcript.platform,
        durationSeconds: entry.durationSeconds,
        transcript: entry.transcript as unknown as Record<string, unknown>,
      })
      .onConflictDoNothing();
  }
}
