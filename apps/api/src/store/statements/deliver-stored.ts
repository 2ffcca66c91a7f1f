import { type SQL, sql } from "drizzle-orm";
import type { DatabaseOrTransaction } from "../database.ts";
import { executePrepared } from "../prepared.ts";
import { captionChoices, storedTranscripts } from "../schema.ts";
import { type Debit, debitSteps } from "./debit.ts";
import { type LibraryDelivery, libraryEntryUpsert, type RecordedEntry } from "./library-entry.ts";

/** What a request asked of an item's captions, lower-cased, '' for what it left out: the key of `caption_choices`. */
export interface CaptionChoice {
  requestedLanguage: string;
  translateTo: string;
}

/** What names an item in the store: its platform and id (or, for media read by its address, that address). */
export interface StoredItem {
  platform: string;
  item: string;
}

/** Which stored transcript a delivery serves. */
export type StoredLookup =
  /** The track a request's choice came to, for an item served before it is resolved again. */
  | { by: "choice"; item: StoredItem; choice: CaptionChoice }
  /** A caption track as it is stored: its language, its kind and, for a translation, the language it came from. */
  | {
      by: "track";
      item: StoredItem;
      language: string | null;
      captionKind: string | null;
      sourceLanguage: string | null;
    }
  /** A row found before (a speech transcript, whose length prices it). */
  | { by: "id"; id: number };

/** What the library entry of a delivery says besides the words: the item's fields as its source says them now. */
export interface DeliveredFields {
  title: string | null;
  channel: string | null;
  durationSeconds: number | null;
}

/** A stored transcript's delivery to one account: which transcript, what it costs, where it lands. */
export interface StoredDeliveryRequest {
  lookup: StoredLookup;
  debit: Debit;
  /** What names the delivery in the library: the wire's platform, id, address and source. */
  delivery: LibraryDelivery;
  /** The fields the entry takes; absent, the stored ones (an item served without being resolved again). */
  fields?: DeliveredFields;
  /** The request's extraction slot, given back by the statement once the transcript is found. */
  slotLeaseId?: string;
  /** Read the words' times too (`words: true`); the statement reads them anyway when the library indexes the words. */
  withWords?: boolean;
}

/** A stored transcript as the statement read it. */
export interface StoredTranscript {
  videoId: string;
  title: string | null;
  channel: string | null;
  durationSeconds: number | null;
  thumbnailUrl: string | null;
  language: string | null;
  captionKind: "manual" | "auto" | null;
  sourceLanguage: string | null;
  /** The `speech_engine` block of a speech transcript; null for captions. */
  speechEngine: Record<string, unknown> | null;
  /** The segments as JSON text, `[{start, duration, text}]` in the order the store keeps their fields. */
  segmentsJson: string;
  /**
   * The words of each segment as the source timed them, as JSON text (`segment_words`), when they
   * were asked for or the library indexes the words; null otherwise, or when the source timed none.
   */
  segmentWordsJson: string | null;
  /** UTF-8 bytes of the segments' texts joined by single spaces. */
  textBytes: number;
  /** The item's chapters when the transcript was kept; null on transcripts kept before chapters were. */
  chapters: Array<{ title: string; start: number; end: number | null }> | null;
}

/** What the statement did with a transcript it found. */
export interface StoredDelivery {
  transcript: StoredTranscript;
  /** Whether the account paid; when not, nothing was charged, recorded or given back. */
  charged: boolean;
  /** The balance after the charge; `null` for unlimited accounts or when nothing was charged. */
  balance: number | null;
  /** The account's library entry when the charge wrote it; `null` when nothing was charged or the entry was left as it was. */
  libraryEntry: RecordedEntry | null;
  /** Whether the statement gave the request's slot back. */
  slotReleased: boolean;
}

interface DeliveryRow {
  video_id: string;
  title: string | null;
  channel: string | null;
  duration_seconds: number | string | null;
  thumbnail_url: string | null;
  language: string | null;
  caption_kind: StoredTranscript["captionKind"];
  source_language: string | null;
  speech_engine: Record<string, unknown> | null;
  segments_json: string;
  segment_words_json: string | null;
  text_bytes: number;
  chapters: StoredTranscript["chapters"];
  charged: boolean;
  balance_after: number | string | null;
  library_entry: RecordedEntry | null;
  slot_released: boolean;
}

/**
 * Serves a stored transcript in one statement, so a store hit is one round trip after admission:
 * reads the transcript the lookup names, charges for it (balance and ledger), records the
 * delivery in the account's library once charged, and gives the request's slot back. Answers
 * `null` when no transcript is stored for the lookup (nothing charged or given back).
 */
export async function deliverStored(
  db: DatabaseOrTransaction,
  request: StoredDeliveryRequest,
): Promise<StoredDelivery | null> {
  const { debit, fields } = request;
  const words = fields
    ? sql`(select ${fields.title}::text as title, ${fields.channel}::text as channel, found.language,
                  ${fields.durationSeconds}::float8 as duration_seconds, found.content_hash from found)`
    : sql`found`;
  const libraryEntry = libraryEntryUpsert({
    accountId: debit.accountId,
    delivery: request.delivery,
    words,
    onlyIf: sql`exists (select 1 from charged)`,
    at: debit.at,
  });
  const slotRelease =
    request.slotLeaseId === undefined
      ? sql`select null::text as id where false`
      : sql`delete from slot_leases where id = ${request.slotLeaseId} and exists (select 1 from found) returning id`;
  const [row] = await executePrepared<DeliveryRow>(
    db,
    sql`
    with found as (
      select t.video_id, t.title, t.channel, t.duration_seconds, t.thumbnail_url, t.language, t.caption_kind,
             t.source_language, t.speech_engine, t.segments_text as segments_json, t.segment_words, t.text_bytes,
             t.content_hash, t.chapters
        from ${storedTranscripts} t
       where ${matching(request.lookup)}
    ),
    ${debitSteps(debit, sql`exists (select 1 from found)`)},
    library_entry as (${libraryEntry}),
    released_slot as (${slotRelease})
    select found.video_id, found.title, found.channel, found.duration_seconds, found.thumbnail_url, found.language,
           found.caption_kind, found.source_language, found.speech_engine, found.segments_json,
           case when ${request.withWords === true}
                  or exists (select 1 from library_entry e where e.previous_hash is distinct from e.content_hash)
                then found.segment_words::text end as segment_words_json,
           found.text_bytes, found.chapters,
           exists (select 1 from charged) as charged, (select balance_after from charged) as balance_after,
           (select to_jsonb(entry) from library_entry entry) as library_entry,
           exists (select 1 from released_slot) as slot_released
      from found`,
  );
  return row ? deliveryOf(row) : null;
}

/** The condition on `stored_transcripts t` that picks the lookup's transcript: one row at most, by the store's key. */
function matching(lookup: StoredLookup): SQL {
  switch (lookup.by) {
    case "choice":
      return sql`t.id = (select c.transcript_id from ${captionChoices} c
                          where c.platform = ${lookup.item.platform} and c.video_id = ${lookup.item.item}
                            and c.requested_language = ${lookup.choice.requestedLanguage}
                            and c.translate_to = ${lookup.choice.translateTo})`;
    case "track":
      return sql`t.platform = ${lookup.item.platform} and t.video_id = ${lookup.item.item}
                 and t.language is not distinct from ${lookup.language}::text
                 and t.caption_kind is not distinct from ${lookup.captionKind}::text
                 and t.source_language is not distinct from ${lookup.sourceLanguage}::text
                 and t.speech_model = ''`;
    case "id":
      return sql`t.id = ${lookup.id}`;
  }
}

function deliveryOf(row: DeliveryRow): StoredDelivery {
  return {
    transcript: {
      videoId: row.video_id,
      title: row.title,
      channel: row.channel,
      durationSeconds: row.duration_seconds === null ? null : Number(row.duration_seconds),
      thumbnailUrl: row.thumbnail_url,
      language: row.language,
      captionKind: row.caption_kind,
      sourceLanguage: row.source_language,
      speechEngine: row.speech_engine,
      segmentsJson: row.segments_json,
      segmentWordsJson: row.segment_words_json,
      textBytes: Number(row.text_bytes),
      chapters: row.chapters,
    },
    charged: row.charged,
    balance: row.balance_after === null ? null : Number(row.balance_after),
    libraryEntry: row.library_entry,
    slotReleased: row.slot_released,
  };
}
