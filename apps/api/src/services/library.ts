import { createHash } from "node:crypto";
import type { Schema } from "@verbatim/contract";
import { type SQL, sql } from "drizzle-orm";
import { momentLinkOf, ytdlpPlatforms } from "../sources/ytdlp/ytdlp-platforms.ts";
import type { DatabaseOrTransaction, Store } from "../store/database.ts";
import { contentHashOf, libraryEntryUpsert, type RecordedEntry } from "../store/statements/library-entry.ts";
import type { FullTranscript } from "./audio-transcript-store.ts";
import type { LibraryCursors, LibraryPosition } from "./library-cursors.ts";
import type { FinishedJob, JobFollower, TranscriptJobRow } from "./transcript-jobs.ts";

export type LibraryEntry = Schema<"LibraryEntry">;
type Segment = Schema<"Segment">;

export type { RecordedEntry } from "../store/statements/library-entry.ts";
export { searchConfigOf } from "../store/statements/library-entry.ts";
export type LibraryHit = Schema<"LibraryHit">;
type Snippet = Schema<"LibrarySnippet">;

/** A passage ends once it holds this much speech or text, at a segment's end. */
const passageSeconds = 60;
const passageCharacters = 1500;

/** Snippets a hit carries, and how much text surrounds a snippet's first match. */
const snippetsPerHit = 3;
const snippetCharactersBefore = 80;
const snippetCharactersAfter = 200;

/** ts_headline's match markers: control characters, which `passagesOf` strips from the text. */
const matchStart = "\u0002";
const matchEnd = "\u0003";

interface Passage {
  position: number;
  text: string;
  starts: number[];
  offsets: number[];
}

/** The text with each control character (the match markers among them) made a space. */
function withoutControlCharacters(text: string): string {
  let cleaned = "";
  for (const character of text) {
    const code = character.charCodeAt(0);
    cleaned += code < 0x20 || code === 0x7f ? " " : character;
  }
  return cleaned;
}

/** The segments of a transcript in passages of about a minute, each segment's start and place in its passage's text kept. */
export function passagesOf(segments: FullTranscript["segments"]): Passage[] {
  const passages: Passage[] = [];
  let current: Passage | null = null;
  for (const segment of segments) {
    const words = withoutControlCharacters(segment.text).replace(/\s+/g, " ").trim();
    if (words === "") continue;
    if (
      current &&
      (segment.start - (current.starts[0] ?? 0) >= passageSeconds || current.text.length >= passageCharacters)
    ) {
      passages.push(current);
      current = null;
    }
    current ??= { position: passages.length, text: "", starts: [], offsets: [] };
    if (current.text !== "") current.text += " ";
    current.starts.push(segment.start);
    current.offsets.push(current.text.length);
    current.text += words;
  }
  if (current) passages.push(current);
  return passages;
}

/** What `passagesOf` kept of a passage: its text, and each segment's start and place in that text. */
export type StoredPassage = Pick<Passage, "text" | "starts" | "offsets">;

/**
 * The segments that passages keep, in order: each segment's words are its passage's text from its
 * offset to the space before the next one's. The passages keep no durations, so a segment lasts
 * until the next one starts, and the last until the media ends (`duration`), or 0 when unknown.
 */
export function segmentsOfPassages(passages: readonly StoredPassage[], duration: number | null): Segment[] {
  const timed: Array<{ start: number; text: string }> = [];
  for (const passage of passages) {
    passage.offsets.forEach((offset, index) => {
      const next = passage.offsets[index + 1];
      timed.push({
        start: passage.starts[index] ?? 0,
        text: passage.text.slice(offset, next === undefined ? undefined : next - 1),
      });
    });
  }
  return timed.map((segment, index) => {
    const until = timed[index + 1]?.start ?? duration ?? segment.start;
    return { start: segment.start, duration: Math.max(0, roundedSeconds(until - segment.start)), text: segment.text };
  });
}

/** Differences of stored times to the millisecond: 5.26 - 2.31 is 2.95, not 2.9499999999999997. */
function roundedSeconds(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}

/** Replaces the entry's passages with those of these segments, indexed with the entry's configuration. */
async function replacePassages(
  entry: RecordedEntry,
  segments: FullTranscript["segments"],
  db: DatabaseOrTransaction,
): Promise<void> {
  await db.execute(sql`delete from library_passages where entry_id = ${entry.id}`);
  const passages = passagesOf(segments);
  if (passages.length === 0) return;
  await db.execute(
    sql`insert into library_passages (entry_id, position, text, segment_starts, segment_offsets, words)
        select ${entry.id}, p.position, p.text, p.starts, p.offsets, to_tsvector(${entry.search_config}::regconfig, p.text)
          from jsonb_to_recordset(${JSON.stringify(passages)}::jsonb)
               as p(position integer, text text, starts double precision[], offsets integer[])`,
  );
}

/** What a library search asks. */
export interface LibrarySearch {
  query: string;
  limit: number;
  cursor?: string;
  platform?: string;
  channel?: string;
}

export interface Page<Row> {
  rows: Row[];
  nextCursor: string | null;
}

interface EntryRow {
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

interface SnippetRow {
  entry_id: number | string;
  marked: string;
  segment_starts: number[];
  segment_offsets: number[];
}

const entryColumns =
  sql.raw(`e.id, e.video_key, (extract(epoch from e.fetched_at) * 1000000)::bigint::text as fetched_micros,
  e.video_id, e.platform, e.url, e.title, e.channel, e.language, e.source, e.duration_seconds, e.fetched_at, e.search_config`);

/**
 * Every transcript an account has received, and full-text search over their words. The
 * transcript service records each delivery here (`record`); one entry per account and video,
 * whose words are indexed in passages of about a minute with the text search configuration of
 * the transcript's language.
 */
export class TranscriptLibrary implements JobFollower {
  constructor(
    private readonly store: Store,
    private readonly cursors: LibraryCursors,
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
    if (!entry) throw new Error(`recording ${transcript.video_id} in the library returned no row`);
    if (entry.previous_hash !== entry.content_hash) await replacePassages(entry, transcript.segments, db);
  }

  /** A completed job delivers its transcript: it enters the library in the transaction that completes the job. */
  async jobFinished(job: TranscriptJobRow, outcome: FinishedJob, db: DatabaseOrTransaction): Promise<void> {
    if (outcome.status === "completed") await this.record(job.accountId, outcome.transcript, db);
  }

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
    return this.pageOf(rows, limit, scope, entryOf);
  }

  /**
   * The account's entry `id` (`<platform>:<video_id>`) with its segments, rebuilt from its
   * passages (`segmentsOfPassages`); `null` when the account has no such entry.
   */
  async transcript(accountId: string, id: string): Promise<{ entry: LibraryEntry; segments: Segment[] } | null> {
    const [row] = await this.store.query<EntryRow & { passages: StoredPassage[] }>(
      sql`select ${entryColumns},
                 (select coalesce(jsonb_agg(jsonb_build_object('text', p.text, 'starts', p.segment_starts,
                                                               'offsets', p.segment_offsets) order by p.position),
                                  '[]'::jsonb)
                    from library_passages p where p.entry_id = e.id) as passages
            from library_entries e
           where e.account_id = ${accountId} and e.video_key = ${id}`,
    );
    if (!row) return null;
    const entry = entryOf(row);
    return { entry, segments: segmentsOfPassages(row.passages, entry.duration) };
  }

  /**
   * A page of the account's transcripts with a passage that matches the query, the most recently
   * fetched first, each with the first moments it matched. The query is parsed once per text
   * search configuration in the account's library, and each transcript is matched with its own.
   */
  async search(accountId: string, search: LibrarySearch): Promise<Page<LibraryHit>> {
    const scope = cursorScope(accountId, "search", search);
    const after = search.cursor ? await this.cursors.read(scope, search.cursor) : null;
    // The distinct configurations by skipping through the index, one probe each, not a read of every entry.
    const configs = await this.store.query<{ search_config: string }>(
      sql`with recursive configs(search_config) as (
            (select search_config from library_entries where account_id = ${accountId} order by search_config limit 1)
            union all
            select (select e.search_config from library_entries e
                     where e.account_id = ${accountId} and e.search_config > configs.search_config
                     order by e.search_config limit 1)
              from configs where configs.search_config is not null)
          select search_config from configs where search_config is not null`,
    );
    if (configs.length === 0) return { rows: [], nextCursor: null };
    // One branch per configuration, each a plain semi-join the planner can run either way: walking
    // the newest entries for a common word, or the GIN index for a rare one. An OR of the
    // configurations would leave it only the second.
    const branches = configs.map(
      ({ search_config: config }) =>
        sql`(select ${entryColumns} from library_entries e
              where e.account_id = ${accountId} and e.search_config = ${config}
                and e.id in (select p.entry_id from library_passages p
                              where p.words @@ websearch_to_tsquery(${config}::regconfig, ${search.query}))
                ${search.platform ? sql`and e.platform = ${search.platform}` : sql``}
                ${search.channel ? sql`and e.channel = ${search.channel}` : sql``}
                ${after ? olderThan(after) : sql``}
              order by e.fetched_at desc, e.id desc
              limit ${search.limit + 1})`,
    );
    const rows = await this.store.query<EntryRow>(
      sql`select * from (${sql.join(branches, sql` union all `)}) hits
           order by (hits.fetched_micros)::bigint desc, hits.id desc
           limit ${search.limit + 1}`,
    );
    const snippets = await this.snippetsOf(rows.slice(0, search.limit), search.query);
    return this.pageOf(rows, search.limit, scope, (row) => ({
      ...entryOf(row),
      snippets: snippets.get(Number(row.id)) ?? [],
    }));
  }

  /** The first matching passages of each entry, highlighted; only the page's entries pay for `ts_headline`. */
  private async snippetsOf(entries: EntryRow[], query: string): Promise<Map<number, Snippet[]>> {
    const snippets = new Map<number, Snippet[]>();
    if (entries.length === 0) return snippets;
    const ids = entries.map((entry) => Number(entry.id));
    const rows = await this.store.query<SnippetRow>(
      sql`select e.id as entry_id, p.segment_starts, p.segment_offsets,
                 ts_headline(e.search_config::regconfig, p.text, websearch_to_tsquery(e.search_config::regconfig, ${query}),
                             ${`HighlightAll=true, StartSel=${matchStart}, StopSel=${matchEnd}`}) as marked
            from library_entries e
            cross join lateral (
              select p.* from library_passages p
               where p.entry_id = e.id and p.words @@ websearch_to_tsquery(e.search_config::regconfig, ${query})
               order by p.position limit ${snippetsPerHit}
            ) p
           where e.id in (${sql.join(
             ids.map((id) => sql`${id}`),
             sql`, `,
           )})
           order by e.id, p.position`,
    );
    const urls = new Map(entries.map((entry) => [Number(entry.id), { url: entry.url, platform: entry.platform }]));
    for (const row of rows) {
      const id = Number(row.entry_id);
      const source = urls.get(id);
      const found = snippetOf(row);
      const list = snippets.get(id) ?? [];
      list.push({
        start: found.start,
        url: source?.url ? linkAt(source.url, source.platform, found.start) : null,
        highlight: found.highlight,
      });
      snippets.set(id, list);
    }
    return snippets;
  }

  private async pageOf<Row>(
    rows: EntryRow[],
    limit: number,
    scope: string,
    shape: (row: EntryRow) => Row,
  ): Promise<Page<Row>> {
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    const nextCursor =
      rows.length > limit && last
        ? await this.cursors.issue(scope, { fetchedMicros: String(last.fetched_micros), id: String(last.id) })
        : null;
    return { rows: page.map(shape), nextCursor };
  }
}

async function rowsOf<Row>(db: DatabaseOrTransaction, statement: SQL): Promise<Row[]> {
  const result = (await db.execute(statement)) as unknown as { rows: Row[] };
  return result.rows;
}

/** Entries after the cursor's in newest-first order; microseconds from the epoch keep `fetched_at` exact. */
function olderThan(after: LibraryPosition): SQL {
  return sql`and (e.fetched_at, e.id) < (timestamptz 'epoch' + ${after.fetchedMicros}::bigint * interval '1 microsecond', ${after.id}::bigint)`;
}

/** What a cursor is bound to: the account, and for a search the query and filters it pages. */
function cursorScope(accountId: string, kind: "list" | "search", search?: LibrarySearch): string {
  const filters = search ? JSON.stringify([search.query, search.platform ?? null, search.channel ?? null]) : "";
  return `${kind}.${accountId}.${createHash("sha256").update(filters).digest("base64url")}`;
}

function entryOf(row: EntryRow): LibraryEntry {
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

/**
 * A link that opens the source at `seconds`: YouTube's `t` parameter, a video platform's own way
 * where it has one (the plain link where it has none), else a media fragment (W3C Media Fragments).
 */
export function linkAt(url: string, platform: LibraryEntry["platform"], seconds: number): string {
  const whole = Math.floor(seconds);
  if (platform === "youtube") {
    const link = new URL(url);
    link.searchParams.set("t", `${whole}s`);
    return link.toString();
  }
  const videoPlatform = ytdlpPlatforms.find((entry) => entry.platform === platform);
  if (videoPlatform) return momentLinkOf(url, videoPlatform.momentLink, whole);
  return `${url.split("#")[0]}#t=${whole}`;
}

/**
 * The segment where the passage's first match begins, and the text around that match as HTML.
 * `marked` is the whole passage with each matched word between `matchStart` and `matchEnd`
 * (`HighlightAll`): nothing precedes the first marker, so its index is its place in the passage,
 * and a marked word holds no space, so a window cut at spaces never splits a mark.
 */
function snippetOf(row: SnippetRow): { start: number; highlight: string } {
  const { marked } = row;
  const firstMark = marked.indexOf(matchStart);
  const matchOffset = firstMark === -1 ? 0 : firstMark;
  let segment = 0;
  for (let index = 0; index < row.segment_offsets.length; index++) {
    if ((row.segment_offsets[index] ?? 0) <= matchOffset) segment = index;
  }
  const from = wordBoundaryBefore(marked, Math.max(0, matchOffset - snippetCharactersBefore));
  const to = wordBoundaryAfter(marked, Math.min(marked.length, matchOffset + snippetCharactersAfter));
  const window = marked.slice(from, to).trim();
  const highlight = `${from > 0 ? "… " : ""}${escapeHtml(window)
    .replaceAll(matchStart, "<mark>")
    .replaceAll(matchEnd, "</mark>")}${to < marked.length ? " …" : ""}`;
  return { start: row.segment_starts[segment] ?? 0, highlight };
}

function wordBoundaryBefore(text: string, index: number): number {
  if (index === 0) return 0;
  const space = text.lastIndexOf(" ", index);
  return space === -1 ? 0 : space + 1;
}

function wordBoundaryAfter(text: string, index: number): number {
  if (index >= text.length) return text.length;
  const space = text.indexOf(" ", index);
  return space === -1 ? text.length : space;
}

function escapeHtml(text: string): string {
  return text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}
