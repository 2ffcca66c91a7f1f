import { ApiError } from "../../errors.ts";
import { SourceRegistry } from "../../sources/registry.ts";
import type { DatabaseOrTransaction, Store } from "../../store/database.ts";
import type { RecordedEntry } from "../../store/statements/library-entry.ts";
import type { FullTranscript } from "../kept/index.ts";
import type { TranscriptJson } from "../renderings/index.ts";
import type { FinishedJob, JobFollower, TranscriptJobRow } from "../speech/index.ts";
import type { LibraryCursors } from "./library-cursors.ts";
import { type LibraryEntry, LibraryReader, type Page, type StoredEntry } from "./library-entries.ts";
import { LibraryRecorder } from "./library-recording.ts";
import { type LibraryHit, type LibrarySearch, LibrarySearcher } from "./library-search.ts";
import type { MomentLinks } from "./library-snippets.ts";

/** Reads of an entry's words before a read gives up on words that keep changing. */
const wordReadAttempts = 3;

/**
 * Every transcript an account has received, and full-text search over their words. The
 * transcript service records each delivery here (`record`); one entry per account and video,
 * whose words are indexed in passages of about a minute with the text search configuration of
 * the transcript's language. It answers for `LibraryRecorder`, `LibraryReader` and
 * `LibrarySearcher`, whose reasons to change differ.
 */
export class TranscriptLibrary implements JobFollower {
  private readonly recorder: LibraryRecorder;
  private readonly reader: LibraryReader;
  private readonly searcher: LibrarySearcher;

  constructor(store: Store, cursors: LibraryCursors, now: () => Date) {
    this.recorder = new LibraryRecorder(store, now);
    this.reader = new LibraryReader(store, cursors);
    this.searcher = new LibrarySearcher(store, cursors);
  }

  /** Records that the account received the transcript (`LibraryRecorder.record`). */
  record(accountId: string, transcript: FullTranscript, db?: DatabaseOrTransaction): Promise<void> {
    return this.recorder.record(accountId, transcript, db);
  }

  /** Indexes a recorded entry's passages when its words changed (`LibraryRecorder.indexIfChanged`). */
  indexIfChanged(
    entry: RecordedEntry,
    segments: () => FullTranscript["segments"],
    db?: DatabaseOrTransaction,
  ): Promise<void> {
    return this.recorder.indexIfChanged(entry, segments, db);
  }

  /** A completed job delivers its transcript: it enters the library in the transaction that completes the job. */
  async jobFinished(job: TranscriptJobRow, outcome: FinishedJob, db: DatabaseOrTransaction): Promise<void> {
    if (outcome.status === "completed") await this.record(job.accountId, outcome.transcript, db);
  }

  /** A page of the account's library, the most recently fetched first. */
  list(accountId: string, limit: number, cursor: string | undefined): Promise<Page<LibraryEntry>> {
    return this.reader.list(accountId, limit, cursor);
  }

  /** The account's entry and what its words weigh, `null` when it has none such (`LibraryReader.find`). */
  find(accountId: string, id: string): Promise<StoredEntry | null> {
    return this.reader.find(accountId, id);
  }

  /**
   * The words of a found entry as its passages' JSON text, with the entry they are the words of:
   * read again when they change while read, as a delivery of other words can make them.
   * `null` when the entry is gone meanwhile.
   */
  async words(found: StoredEntry): Promise<{ stored: StoredEntry; words: TranscriptJson } | null> {
    let stored: StoredEntry | null = found;
    for (let attempt = 1; stored; attempt++) {
      const pages = await this.reader.passagePages(stored);
      if (pages) return { stored, words: { kind: "passages", pages, duration: stored.entry.duration } };
      if (attempt === wordReadAttempts) {
        throw new ApiError("overloaded", "The transcript changed each time it was read. Retry later.", {
          retryAfterSeconds: 1,
        });
      }
      stored = await this.reader.find(stored.accountId, stored.entry.id);
    }
    return null;
  }

  /**
   * A page of the account's transcripts that match the query, with their snippets
   * (`LibrarySearcher.search`), each linking to its moment as `links` (the server's sources) says;
   * without them, a media fragment.
   */
  search(
    accountId: string,
    search: LibrarySearch,
    links: MomentLinks = new SourceRegistry([]),
  ): Promise<Page<LibraryHit>> {
    return this.searcher.search(accountId, search, links);
  }
}
