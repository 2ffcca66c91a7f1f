import { sql } from "drizzle-orm";
import type { DatabaseOrTransaction } from "../database.ts";
import { youtubeCaptionChoices, youtubeTranscripts } from "../schema.ts";
import { type Debit, debitSteps } from "./debit.ts";
import { libraryEntryUpsert, type RecordedEntry } from "./library-entry.ts";

/** What a request asked of a video's captions, lower-cased, '' for what it left out: the key of `youtube_caption_choices`. */
export interface CaptionChoice {
  requestedLanguage: string;
  translateTo: string;
}

/** A stored transcript's delivery to one account: which transcript, what it costs, where it lands. */
export interface StoredDeliveryRequest {
  videoId: string;
  choice: CaptionChoice;
  debit: Debit;
  /** The watch page the library entry names. */
  url: string;
  /** The request's extraction slot, given back by the statement once the transcript is found. */
  slotLeaseId?: string;
  /** Read the words' times too (`words: true`); the statement reads them anyway when the library indexes the words. */
  withWords?: boolean;
}

/** A stored caption transcript as the statement read it. */
export interface StoredCaptions {
  videoId: string;
  title: string | null;
  channel: string | null;
  durationSeconds: number | null;
  thumbnailUrl: string | null;
  language: string | null;
  captionKind: "manual" | "auto" | null;
  sourceLanguage: string | null;
  /** The segments as JSON text, `[{start, duration, text}]` in the order the store keeps their fields. */
  segmentsJson: string;
  /**
   * The words of each segment as the track timed them, as JSON text (`segment_words`), when they
   * were asked for or the library indexes the words; null otherwise, or when the track timed none.
   */
  segmentWordsJson: string | null;
  /** UTF-8 bytes of the segments' texts joined by single spaces. */
  textBytes: number;
  /** The video's chapters when the track was fetched; null on tracks stored before chapters were kept. */
  chapters: Array<{ title: string; start: number; end: number | null }> | null;
}

/** What the statement did with a transcript it found. */
export interface StoredDelivery {
  transcript: StoredCaptions;
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
  caption_kind: StoredCaptions["captionKind"];
  source_language: string | null;
  segments_json: string;
  segment_words_json: string | null;
  text_bytes: number;
  chapters: StoredCaptions["chapters"];
  charged: boolean;
  balance_after: number | string | null;
  library_entry: RecordedEntry | null;
  slot_released: boolean;
}

/**
 * Serves a stored caption transcript in one statement, so a store hit is one round trip after
 * admission: reads the transcript the choice names, charges for it (balance and ledger), records
 * the delivery in the account's library once charged, and gives the request's slot back. Answers
 * `null` when no transcript is stored for the choice (nothing charged or given back).
 */
export async function deliverStored(
  db: DatabaseOrTransaction,
  request: StoredDeliveryRequest,
): Promise<StoredDelivery | null> {
  const { videoId, choice, debit } = request;
  const libraryEntry = libraryEntryUpsert({
    accountId: debit.accountId,
    delivery: { platform: "youtube", video_id: videoId, url: request.url, source: "captions" },
    words: sql`found`,
    onlyIf: sql`exists (select 1 from charged)`,
    at: debit.at,
  });
  const slotRelease =
    request.slotLeaseId === undefined
      ? sql`select null::text as id where false`
      : sql`delete from slot_leases where id = ${request.slotLeaseId} and exists (select 1 from found) returning id`;
  const result = await db.execute(sql`
    with found as (
      select t.video_id, t.title, t.channel, t.duration_seconds, t.thumbnail_url, t.language, t.caption_kind,
             t.source_language, t.segments::text as segments_json, t.segment_words, t.text_bytes, t.content_hash,
             t.chapters
        from ${youtubeCaptionChoices} c join ${youtubeTranscripts} t on t.id = c.transcript_id
       where c.video_id = ${videoId} and c.requested_language = ${choice.requestedLanguage}
         and c.translate_to = ${choice.translateTo}
    ),
    ${debitSteps(debit, sql`exists (select 1 from found)`)},
    library_entry as (${libraryEntry}),
    released_slot as (${slotRelease})
    select found.video_id, found.title, found.channel, found.duration_seconds, found.thumbnail_url, found.language,
           found.caption_kind, found.source_language, found.segments_json,
           case when ${request.withWords === true}
                  or exists (select 1 from library_entry e where e.previous_hash is distinct from e.content_hash)
                then found.segment_words::text end as segment_words_json,
           found.text_bytes, found.chapters,
           exists (select 1 from charged) as charged, (select balance_after from charged) as balance_after,
           (select to_jsonb(entry) from library_entry entry) as library_entry,
           exists (select 1 from released_slot) as slot_released
      from found`);
  const [row] = (result as unknown as { rows: DeliveryRow[] }).rows;
  return row ? deliveryOf(row) : null;
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
