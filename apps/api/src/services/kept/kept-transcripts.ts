import {
  type DeliveredFields,
  deliverStored,
  type StoredLookup,
  type StoredTranscript,
} from "../../store/statements/deliver-stored.ts";
import type { LibraryDelivery } from "../../store/statements/library-entry.ts";
import type { ChargeRequest, Credits } from "../accounts/index.ts";
import type { TranscriptOutcome, TranscriptQuery } from "./transcript-requests.ts";
import type { FullTranscript } from "./transcript-store.ts";

/** A kept transcript's delivery: which one, its price, and what the library entry says of it. */
export interface KeptDelivery {
  lookup: StoredLookup;
  credits: number;
  delivery: LibraryDelivery;
  /** The item's fields as its source says them now; absent, the kept ones (an item served without being resolved again). */
  fields?: DeliveredFields;
}

/**
 * Serves transcripts kept in the store (`stored_transcripts`), whatever the platform: the read,
 * the charge, the library entry and the slot's release in one statement, so a repeat of any
 * item is one round trip after admission.
 */
export class KeptTranscripts {
  constructor(private readonly credits: Credits) {}

  /**
   * The kept transcript the delivery names, charged and recorded (`transcriptOf` gives its wire
   * form); null when none is kept, and then nothing was charged or given back. The segments are
   * those the store keeps, which the response may splice in unparsed.
   */
  async serve(
    query: TranscriptQuery,
    kept: KeptDelivery,
    transcriptOf: (stored: StoredTranscript) => FullTranscript,
  ): Promise<TranscriptOutcome | null> {
    const { slot } = query;
    const served = await this.credits.chargeWithin(chargeOf(query, kept.credits), (db, debit) =>
      deliverStored(db, {
        lookup: kept.lookup,
        debit,
        delivery: kept.delivery,
        ...(kept.fields ? { fields: kept.fields } : {}),
        ...(slot ? { slotLeaseId: slot.lease.id } : {}),
        withWords: query.words === true,
      }),
    );
    if (!served) return null;
    if (served.slotReleased && slot) {
      // A statement rolled back with the answer gave nothing back: the response's close does.
      if (query.settlement) query.settlement.afterCommit(() => slot.releasedByStatement());
      else slot.releasedByStatement();
    }
    const { transcript } = served;
    return {
      kind: "transcript",
      transcript: transcriptOf(transcript),
      creditsSpent: kept.credits,
      balance: served.balance,
      recorded: served.libraryEntry,
      serialised: { json: transcript.segmentsJson, textBytes: transcript.textBytes },
    };
  }
}

/** The charge of `credits` for a query: its account, its operation, and where it commits. */
export function chargeOf(query: TranscriptQuery, credits: number): ChargeRequest {
  return {
    accountId: query.accountId,
    credits,
    operation: query.operation,
    requestId: query.requestId,
    ...(query.signal ? { signal: query.signal } : {}),
    ...(query.settlement ? { settlement: query.settlement } : {}),
  };
}
