import { createHash } from "node:crypto";
import type { Schema } from "@verbatim/contract";
import { type SQL, sql } from "drizzle-orm";
import type { Store } from "../../store/database.ts";
import type { TranscriptSize } from "../renderings/index.ts";
import type { LibraryCursors, LibraryPosition } from "./library-cursors.ts";

export type LibraryEntry = Schema<"LibraryEntry">;

/** A page of the library or of a search, and the cursor of the next one. */
export interface Page<Row> {
  rows: Row[];
  nextCursor: string | null;
}

/** An entry as the library's listings select it (`entryColumns`). */
export interface EntryRow {
  id: number | string;
  video_key: string;
  fetched_micros: number | string;
  video_id: string;
  platform: LibraryEntry["platform"];
  url: string | null;
  title: string | null;
  channel: string | null;
  language: string | null;
  source: LibraryEntry["source"];
  duration_seconds: number | null;
  fetched_at: string | Date;
  search_config: string;
}

/** The columns of an `EntryRow`, of the entry `e`. */
export const entryColumns =
  sql.raw(`e.id, e.video_key, (extract(epoch from e.fetched_at) * 1000000)::bigint::text as fetched_micros,
  e.video_id, e.platform, e.url, e.title, e.channel, e.language, e.source, e.duration_seconds, e.fetched_at, e.search_config`);

/**
 * The account's library as it lists and reads its entries: pages the most recently fetched
 * first, each entry's words rebuilt from its passages.
 */
export class LibraryReader {
  constructor(
    private readonly store: Store,
    private readonly cursors: LibraryCursors,
  ) {}

  /** A page of the account's library, the most recently fetched first. */
  async list(accountId: string, limit: number, cursor: string | undefined): Promise<Page<LibraryEntry>> {
    const scope = cursorScope(accountId, "list");
    const after = cursor ? await this.cursors.read(scope, cursor) : null;
    const rows = await this.store.query<EntryRow>(
      sql`select ${entryColumns} from library_entries e
           where e.account_id = ${accountId} ${after ? olderThan(after) : sql``}
           order by e.fetched_at desc, e.id desc
           limit ${limit + 1}`,
    );
    return pageOf(this.cursors, rows, limit, scope, entryOf);
  }

  /**
   * The account's entry `id` (`<platform>:<video_id>`) and what its words weigh, without them;
   * `null` when the account has no such entry.
   */
  async find(accountId: string, id: string): Promise<StoredEntry | null> {
    const [row] = await this.store.query<
      EntryRow & {
        content_hash: string;
        passages: number | string;
        segments: number | string;
        text_bytes: number | string;
      }
    >(
      sql`select ${entryColumns}, e.content_hash,
                 count(p.position) as passages,
                 coalesce(sum(cardinality(p.segment_offsets)), 0) as segments,
                 coalesce(sum(octet_length(p.text)), 0) + greatest(count(p.position) - 1, 0) as text_bytes
            from library_entries e left join library_passages p on p.entry_id = e.id
           where e.account_id = ${accountId} and e.video_key = ${id}
           group by e.id`,
    );
    if (!row) return null;
    return {
      accountId,
      entry: entryOf(row),
      rowId: String(row.id),
      contentHash: row.content_hash,
      passages: Number(row.passages),
      // The passages hold the segments' words joined by single spaces, and are joined by one in turn.
      size: { segments: Number(row.segments), textBytes: Number(row.text_bytes) },
    };
  }

  /**
   * The words of a found entry: its passages as JSON text (`StoredPassage[]`), a page of them per
   * statement, so that no statement holds the store (or, on PGlite, the event loop) for long.
   * `null` when the words changed between the statements: the pages would mix two transcripts.
   */
  async passagePages(stored: StoredEntry): Promise<string[] | null> {
    const pages: string[] = [];
    for (let first = 0; first < stored.passages; first += passagesPerPage) {
      const [page] = await this.store.query<{ passages: string; unchanged: boolean }>(
        // json, not jsonb: the text is all a page is read for, and json builds it in less than half the time.
        sql`select coalesce(json_agg(json_build_object('text', p.text, 'starts', p.segment_starts,
                                                       'offsets', p.segment_offsets, 'wordStarts', p.word_starts,
                                                       'wordDurations', p.word_durations) order by p.position),
                            '[]'::json)::text as passages,
                   exists (select 1 from library_entries e
                            where e.id = ${stored.rowId} and e.content_hash = ${stored.contentHash}) as unchanged
              from library_passages p
             where p.entry_id = ${stored.rowId} and p.position >= ${first} and p.position < ${first + passagesPerPage}`,
      );
      if (!page?.unchanged) return null;
      pages.push(page.passages);
    }
    return pages;
  }
}

/** Passages read per statement: about 150 KB of words. */
const passagesPerPage = 100;

/** An entry as a read finds it (`LibraryReader.find`): what the answer shows, and what reading its words takes. */
export interface StoredEntry {
  accountId: string;
  entry: LibraryEntry;
  /** The entry's row, whose passages hold its words. */
  rowId: string;
  /** The hash of its words when found: its passages are read as long as it holds. */
  contentHash: string;
  passages: number;
  size: TranscriptSize;
}

/**
 * The first `limit` rows shaped for the answer, and a cursor bound to `scope` after the last of
 * them when more follow (`rows` holds one row more than the page then).
 */
export async function pageOf<Row>(
  cursors: LibraryCursors,
  rows: EntryRow[],
  limit: number,
  scope: string,
  shape: (row: EntryRow) => Row,
): Promise<Page<Row>> {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  const nextCursor =
    rows.length > limit && last
      ? await cursors.issue(scope, { fetchedMicros: String(last.fetched_micros), id: String(last.id) })
      : null;
  return { rows: page.map(shape), nextCursor };
}

/** Entries after the cursor's in newest-first order; microseconds from the epoch keep `fetched_at` exact. */
export function olderThan(after: LibraryPosition): SQL {
  return sql`and (e.fetched_at, e.id) < (timestamptz 'epoch' + ${after.fetchedMicros}::bigint * interval '1 microsecond', ${after.id}::bigint)`;
}

/** What a cursor is bound to: the account, and for a search the query and filters it pages. */
export function cursorScope(
  accountId: string,
  kind: "list" | "search",
  search?: { query: string; platform?: string; channel?: string },
): string {
  const filters = search ? JSON.stringify([search.query, search.platform ?? null, search.channel ?? null]) : "";
  return `${kind}.${accountId}.${createHash("sha256").update(filters).digest("base64url")}`;
}

/** An entry as the API answers it. */
export function entryOf(row: EntryRow): LibraryEntry {
  return {
    id: row.video_key,
    video_id: row.video_id,
    url: row.url,
    platform: row.platform,
    title: row.title,
    channel: row.channel,
    language: row.language,
    source: row.source,
    duration: row.duration_seconds === null ? null : Number(row.duration_seconds),
    fetched_at: new Date(row.fetched_at).toISOString(),
  };
}
