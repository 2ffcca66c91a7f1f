import type { RecordedEntry } from "../../store/statements/library-entry.ts";
import type { ChargeSettlement, HeldSlot, PlanName } from "../accounts/index.ts";
import type { FullTranscript } from "./transcript-store.ts";

/** Where the words of a transcript may come from (the request's `mode`). */
export type TranscriptMode = "auto" | "captions" | "audio";

/** Segments as JSON text, and the UTF-8 bytes of their texts joined by single spaces (`usage.bytes`). */
export interface SerialisedSegments {
  json: string;
  textBytes: number;
}

/** One input for one account, as a transcript request, a batch row or a monitor asks for it. */
export interface TranscriptQuery {
  video: string;
  /** The episode of a feed (its guid or enclosure URL). */
  episode?: string;
  /** The preferred caption language. */
  language?: string;
  /** The language to translate the captions into, with the platform's own translation (`translate_to`). */
  translateTo?: string;
  mode: TranscriptMode;
  accountId: string;
  plan: PlanName;
  /** The balance when the request arrived; null for unlimited accounts. */
  balance: number | null;
  requestId: string;
  /** The operation charged, as `METHOD /path`: the ledger says which endpoint spent the credits. */
  operation: string;
  /** Once aborted, nothing more is charged or queued for this request (a batch past its deadline). */
  signal?: AbortSignal;
  /**
   * Where the request's one charge commits with its answer (a request with an Idempotency-Key);
   * batch rows and monitors, which charge several times in one request, have none.
   */
  settlement?: ChargeSettlement;
  callbackUrl: string | null;
  /** The validated body, kept with a job. */
  body: Record<string, unknown>;
  /** The base of `error.docs` links in a job's callback. */
  docsBaseUrl: string;
  /** The request's extraction slot: a transcript served from the store gives it back in the statement that charges. */
  slot?: HeldSlot;
  /** The answer times each word (`words: true`): a transcript served from the store reads the times it keeps. */
  words?: boolean;
}

/**
 * What a query came to: a transcript, charged, or a speech recognition job, charged when it
 * completes. A transcript served from the store was recorded in the library by the statement
 * that charged it (`recorded`: the entry it wrote, `null` when it left the entry as it was).
 */
export type TranscriptOutcome =
  | {
      kind: "transcript";
      transcript: FullTranscript;
      creditsSpent: number;
      balance: number | null;
      recorded?: RecordedEntry | null;
      /** Served from the store: the segments as it keeps them, which the response may splice in unparsed. */
      serialised?: SerialisedSegments;
    }
  | { kind: "job"; jobId: string; videoId: string; platform: FullTranscript["platform"] };

/** A source call on behalf of a request: its account's share of the source, and its signal. */
export function callOf(query: TranscriptQuery): { accountId: string; signal?: AbortSignal } {
  return { accountId: query.accountId, ...(query.signal ? { signal: query.signal } : {}) };
}
