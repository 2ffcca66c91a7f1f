import type { Logger } from "../../logger.ts";
import type { SourceRegistry } from "../../sources/registry.ts";
import { SourceError } from "../../sources/source-error.ts";
import { toApiError } from "../failures/index.ts";
import type { TranscriptOutcome, TranscriptQuery } from "../kept/index.ts";
import type { TranscriptLibrary } from "../library/index.ts";
import type { AudioTranscripts } from "./audio-transcripts.ts";

export type { TranscriptOutcome, TranscriptQuery } from "../kept/index.ts";

export interface TranscriptsOptions {
  /** The one way to a transcript, whatever the input. */
  audio: AudioTranscripts;
  /** The sources an input may name: which item it is, for a batch to tell repeats apart. */
  sources: SourceRegistry;
  /** Where each transcript delivered to an account is recorded; jobs record theirs when they complete. */
  library: TranscriptLibrary;
  /** Told when recording in the library fails: the transcript was delivered and charged all the same. */
  logger: Logger;
}

/** The item an input names, as far as the input tells it offline. */
export interface NamedItem {
  /** Inputs naming the same item (an id, its watch, short or embed URL) share it. */
  key: string;
  /** The platform's id of the item where the input names it, else the input as sent. */
  videoId: string;
}

/**
 * Fetches the transcript of one input for one account (`AudioTranscripts.request`). Every caller
 * (the video endpoint, batch rows, monitors) goes through here, so the same input gets the same
 * errors and the same charges wherever it is asked, and every transcript delivered lands in the
 * account's library (a job's lands there when it completes).
 */
export class Transcripts {
  constructor(private readonly options: TranscriptsOptions) {}

  async fetch(query: TranscriptQuery): Promise<TranscriptOutcome> {
    const outcome = await this.options.audio.request(query).catch((error: unknown) => {
      throw toApiError(error);
    });
    if (outcome.kind === "transcript") {
      await this.recordDelivery(query, outcome).catch((error: unknown) => {
        this.options.logger.error(
          { err: error, videoId: outcome.transcript.video_id, requestId: query.requestId },
          "recording a delivered transcript in the library failed",
        );
      });
    }
    return outcome;
  }

  /** The item an input names, offline: its source's reference, or the input itself when no source claims it. */
  itemOf(input: string): NamedItem {
    const match = this.options.sources.match(input);
    if (match instanceof SourceError) return { key: `input:${input}`, videoId: input };
    const { ref } = match;
    return { key: `${ref.platform}:${ref.itemId ?? ref.url}`, videoId: ref.itemId ?? input };
  }

  /**
   * Records a delivered transcript in the library: in the transaction the charge waits in for the
   * answer, if it does, within a savepoint, so a recording that fails undoes neither the charge
   * nor the answer.
   */
  private recordDelivery(query: TranscriptQuery, outcome: TranscriptOutcome & { kind: "transcript" }): Promise<void> {
    const { library } = this.options;
    const db = query.settlement?.transaction;
    const { recorded } = outcome;
    if (recorded !== undefined) {
      return recorded ? library.indexIfChanged(recorded, () => outcome.transcript.segments, db) : Promise.resolve();
    }
    if (db) return db.transaction((savepoint) => library.record(query.accountId, outcome.transcript, savepoint));
    return library.record(query.accountId, outcome.transcript);
  }
}
