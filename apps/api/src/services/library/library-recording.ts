import { type SQL, sql } from "drizzle-orm";
import type { DatabaseOrTransaction, Store } from "../../store/database.ts";
import { contentHashOf, libraryEntryUpsert, type RecordedEntry } from "../../store/statements/library-entry.ts";
import type { FullTranscript } from "../kept/index.ts";
import { replacePassages } from "../kept/index.ts";

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
   * Records that the account received the transcript: the entry's `fetched_at` moves to now when
   * something would change (`libraryEntryUpsert`), and its passages are indexed again only when
   * the words differ from those recorded. Pass the transaction that delivers the transcript, so
   * the entry commits with the delivery; without one, the record is a transaction of its own, so
   * concurrent deliveries of the same video take turns on the entry's row instead of mixing their
   * passages.
   */
  async record(accountId: string, transcript: FullTranscript, db?: DatabaseOrTransaction): Promise<void> {
    if (db) return this.write(accountId, transcript, db);
    await this.store.db.transaction((tx) => this.write(accountId, transcript, tx));
  }

  /**
   * Indexes the passages of an entry a statement recorded (`deliverStored`) when its words changed:
   * nothing when they did not. The entry's row is locked first, so concurrent deliveries of the
   * same video take turns instead of mixing their passages. Given the transaction that delivers
   * the transcript (`db`), the passages commit with it, written in a savepoint of their own.
   * `segments` is called only then: a store hit's words stay unparsed when they did not change.
   */
  async indexIfChanged(
    entry: RecordedEntry,
    segments: () => FullTranscript["segments"],
    db?: DatabaseOrTransaction,
  ): Promise<void> {
    if (entry.previous_hash === entry.content_hash) return;
    await (db ?? this.store.db).transaction(async (tx) => {
      await tx.execute(sql`select 1 from library_entries where id = ${entry.id} for update`);
      await replacePassages(entry, segments(), tx);
    });
  }

  private async write(accountId: string, transcript: FullTranscript, db: DatabaseOrTransaction): Promise<void> {
    const language = sql`${transcript.language}::text`;
    const words = sql`(select ${transcript.title}::text as title, ${transcript.channel}::text as channel,
                              ${language} as language, ${transcript.duration}::float8 as duration_seconds,
                              ${contentHashOf(language, sql`${JSON.stringify(transcript.segments)}::jsonb`)} as content_hash)`;
    const upsert = libraryEntryUpsert({ accountId, delivery: transcript, words, onlyIf: sql`true`, at: this.now() });
    const [entry] = await rowsOf<RecordedEntry>(db, upsert);
    if (entry && entry.previous_hash !== entry.content_hash) await replacePassages(entry, transcript.segments, db);
  }
}

async function rowsOf<Row>(db: DatabaseOrTransaction, statement: SQL): Promise<Row[]> {
  const result = (await db.execute(statement)) as unknown as { rows: Row[] };
  return result.rows;
}
