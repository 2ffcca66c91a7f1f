import { type SQL, sql } from "drizzle-orm";

/**
 * PostgreSQL's text search configurations by ISO 639-1 code. Each is used only where the
 * database has it (PostgreSQL 15 lacks several that 16 and PGlite have); otherwise `simple`,
 * which lower-cases words without stemming or stop words.
 */
const searchConfigs: Readonly<Record<string, string>> = {
  ar: "arabic",
  ca: "catalan",
  da: "danish",
  de: "german",
  el: "greek",
  en: "english",
  es: "spanish",
  et: "estonian",
  eu: "basque",
  fi: "finnish",
  fr: "french",
  ga: "irish",
  hi: "hindi",
  hu: "hungarian",
  hy: "armenian",
  id: "indonesian",
  it: "italian",
  lt: "lithuanian",
  nb: "norwegian",
  ne: "nepali",
  nl: "dutch",
  nn: "norwegian",
  no: "norwegian",
  pt: "portuguese",
  ro: "romanian",
  ru: "russian",
  sr: "serbian",
  sv: "swedish",
  ta: "tamil",
  tr: "turkish",
  yi: "yiddish",
};

/** Which delivery an entry records: the fields of a transcript that name it. */
export interface LibraryDelivery {
  platform: string;
  video_id: string;
  url: string | null;
  source: string;
}

/** An entry as a delivery's statement recorded it: its passages need indexing when the two hashes differ. */
export interface RecordedEntry {
  id: number | string;
  search_config: string;
  content_hash: string;
  previous_hash: string | null;
}

/**
 * The text search configuration of a BCP-47 language's primary subtag (`pt-BR` is `portuguese`),
 * where the database has it, else `simple`; in SQL, so a statement that reads the language
 * chooses it.
 */
export function searchConfigOf(language: SQL): SQL {
  return sql`coalesce((select cfgname::text from pg_ts_config
                        where cfgname = ${JSON.stringify(searchConfigs)}::jsonb ->> split_part(replace(lower(${language}), '_', '-'), '-', 1)),
                      'simple')`;
}

/**
 * SHA-256 of the language and segments (jsonb): the same words delivered again are not indexed
 * again. A stored transcript keeps the same hash of its words (`stored_transcripts.content_hash`).
 */
export function contentHashOf(language: SQL, segments: SQL): SQL {
  return sql`encode(sha256(convert_to(jsonb_build_array(${language}, ${segments})::text, 'UTF8')), 'base64')`;
}

/** Where a library entry's fields come from: `words` is a relation of one row at most. */
export interface LibraryEntryWrite {
  accountId: string;
  delivery: LibraryDelivery;
  /** A relation with `title`, `channel`, `language`, `duration_seconds` and `content_hash`. */
  words: SQL;
  /** The entry is written only when this holds. */
  onlyIf: SQL;
  at: Date;
}

/**
 * How stale an entry's `fetched_at` may be before a delivery of the same words moves it. Each
 * write is a new row version in four indexes (`fetched_at` is in one, so never a HOT update), the
 * heaviest write of a store hit; with this bound a video one account fetches again and again is
 * written once a minute, not once a request, and the time the library shows is still the last
 * delivery's to the minute, the precision people read a "fetched at" with.
 */
const fetchedAtTolerance = "60 seconds";

/**
 * Inserts the account's entry for the delivery, or refreshes it (`fetched_at` moves to `at`) when
 * something would change: a field of the delivery, the entry's place at the top of the account's
 * library (another entry is newer), or a `fetched_at` older than `fetchedAtTolerance`. Answers the
 * entry written with the hash recorded until now (`RecordedEntry`), no row when it was left as it was.
 */
export function libraryEntryUpsert(write: LibraryEntryWrite): SQL {
  const { delivery } = write;
  const language = sql`w.language`;
  // The subquery in RETURNING reads the snapshot from before the upsert: the hash recorded until now.
  // The newer entry's probe runs on library_entries_newest_idx, in the library's order.
  return sql`insert into library_entries as e (account_id, video_key, video_id, platform, url, title, channel, language,
                                               source, duration_seconds, search_config, content_hash, fetched_at)
             select ${write.accountId}, ${`${delivery.platform}:${delivery.video_id}`}, ${delivery.video_id},
                    ${delivery.platform}, ${delivery.url}, w.title, w.channel, ${language}, ${delivery.source},
                    w.duration_seconds, ${searchConfigOf(language)}, w.content_hash, ${write.at.toISOString()}::timestamptz
               from ${write.words} w
              where ${write.onlyIf}
             on conflict (account_id, video_key) do update
               set video_id = excluded.video_id, url = excluded.url, title = excluded.title, channel = excluded.channel,
                   language = excluded.language, source = excluded.source, duration_seconds = excluded.duration_seconds,
                   search_config = excluded.search_config, content_hash = excluded.content_hash,
                   fetched_at = excluded.fetched_at
             where (e.content_hash, e.video_id, e.url, e.title, e.channel, e.language, e.source, e.duration_seconds,
                    e.search_config)
                   is distinct from (excluded.content_hash, excluded.video_id, excluded.url, excluded.title,
                                     excluded.channel, excluded.language, excluded.source, excluded.duration_seconds,
                                     excluded.search_config)
                or e.fetched_at < excluded.fetched_at - ${fetchedAtTolerance}::interval
                or exists (select 1 from library_entries newer
                            where newer.account_id = e.account_id and (newer.fetched_at, newer.id) > (e.fetched_at, e.id))
             returning e.id, e.search_config, e.content_hash,
                       (select previous.content_hash from library_entries previous where previous.id = e.id) as previous_hash`;
}
