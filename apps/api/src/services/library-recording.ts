import { type SQL, sql } from "drizzle-orm";
import type { DatabaseOrTransaction, Store } from "../store/database.ts";
import type { FullTranscript } from "./audio-transcript-store.ts";
import type { ChargeStep } from "./credits.ts";
import { replacePassages } from "./library-passages.ts";
import { searchConfigOf } from "./library-search-configs.ts";

/** Which delivery an entry records: the fields of a transcript that name it. */
export type Delivery = Pick<FullTranscript, "platform" | "video_id" | "url" | "source">;

/** An entry as a delivery's statement recorded it: its passages need indexing when the two hashes differ. */
export interface RecordedEntry {
  id: number | string;
  search_config: string;
  content_hash: string;
  previous_hash: string | null;
}

/** SHA-256 of the language and segments: the same words delivered again are not indexed again. */
function contentHashOf(language: SQL, segments: SQL): SQL {
  return sql`encode(sha256(convert_to(jsonb_build_array(${language}, ${segments})::text, 'UTF8')), 'base64')`;
}

/**
 * Records each delivery of a transcript to an account in its library: one entry per account and
 * video, whose words are indexed in passages (`library-passages.ts`) with the text search
 * configuration of the transcript's language, again only when the words changed.
 */
export class LibraryRecorder {
  constructor(
    private readonly store: Store,
    private readonly now: () => Date,
  ) {}

  /**
   * Records that the account received the transcript: the entry's `fetched_at` moves to now,
   * and its passages are indexed again only when the words differ from those recorded. Pass the
   * transaction that delivers the transcript, so the entry commits with the delivery; without
   * one, the record is a transaction of its own, so concurrent deliveries of the same video
   * take turns on the entry's row instead of mixing their passages.
   */
  async record(accountId: string, transcript: FullTranscript, db?: DatabaseOrTransaction): Promise<void> {
    if (db) return this.write(accountId, transcript, db);
    await this.store.db.transaction((tx) => this.write(accountId, transcript, tx));
  }

  /**
   * The step that records a delivery inside the statement that delivers it (a store hit's read
   * and charge), so the delivery costs no round trip of its own: the step `library_entry`. It
   * reads the transcript's `title`, `channel`, `language`, `duration_seconds` and `segments`
   * from the relation `words`, and records only when `onlyIf` holds. The statement answers the
   * entry (`RecordedEntry`), whose passages `indexIfChanged` then brings up to date.
   */
  recordStep(accountId: string, delivery: Delivery, words: SQL, onlyIf: SQL): ChargeStep {
    return { name: "library_entry", statement: this.upsert(accountId, delivery, words, onlyIf) };
  }

  /**
   * Indexes the passages of an entry a statement recorded (`recordStep`) when its words changed:
   * nothing when they did not. The entry's row is locked first, so concurrent deliveries of the
   * same video take turns instead of mixing their passages. Given the transaction that delivers
   * the transcript (`db`), the passages commit with it, written in a savepoint of their own.
   */
  async indexIfChanged(
    entry: RecordedEntry,
    segments: FullTranscript["segments"],
    db?: DatabaseOrTransaction,
  ): Promise<void> {
    if (entry.previous_hash === entry.content_hash) return;
    await (db ?? this.store.db).transaction(async (tx) => {
      await tx.execute(sql`select 1 from library_entries where id = ${entry.id} for update`);
      await replacePassages(entry, segments, tx);
    });
  }

  private async write(accountId: string, transcript: FullTranscript, db: DatabaseOrTransaction): Promise<void> {
    const words = sql`(select ${transcript.title}::text as title, ${transcript.channel}::text as channel,
                              ${transcript.language}::text as language, ${transcript.duration}::float8 as duration_seconds,
                              ${JSON.stringify(transcript.segments)}::jsonb as segments)`;
    const [entry] = await rowsOf<RecordedEntry>(db, this.upsert(accountId, transcript, words, sql`true`));
    if (!entry) throw new Error(`recording ${transcript.video_id} in the library returned no row`);
    if (entry.previous_hash !== entry.content_hash) await replacePassages(entry, transcript.segments, db);
  }

  /** Inserts the account's entry for the delivery, or refreshes it; answers it with the hash recorded until now. */
  private upsert(accountId: string, delivery: Delivery, words: SQL, onlyIf: SQL): SQL {
    const language = sql`w.language`;
    // The subquery in RETURNING reads the snapshot from before the upsert: the hash recorded until now.
    return sql`insert into library_entries as e (account_id, video_key, video_id, platform, url, title, channel, language,
                                                 source, duration_seconds, search_config, content_hash, fetched_at)
               select ${accountId}, ${`${delivery.platform}:${delivery.video_id}`}, ${delivery.video_id},
                      ${delivery.platform}, ${delivery.url}, w.title, w.channel, ${language}, ${delivery.source},
                      w.duration_seconds, ${searchConfigOf(language)}, ${contentHashOf(language, sql`w.segments`)},
                      ${this.now().toISOString()}::timestamptz
                 from ${words} w
                where ${onlyIf}
               on conflict (account_id, video_key) do update
                 set video_id = excluded.video_id, url = excluded.url, title = excluded.title, channel = excluded.channel,
                     language = excluded.language, source = excluded.source, duration_seconds = excluded.duration_seconds,
                     search_config = excluded.search_config, content_hash = excluded.content_hash,
                     fetched_at = excluded.fetched_at
               returning e.id, e.search_config, e.content_hash,
                         (select previous.content_hash from library_entries previous where previous.id = e.id) as previous_hash`;
  }
}

async function rowsOf<Row>(db: DatabaseOrTransaction, statement: SQL): Promise<Row[]> {
  const result = (await db.execute(statement)) as unknown as { rows: Row[] };
  return result.rows;
}
