import type { Schema } from "@verbatim/contract";
import { sql } from "drizzle-orm";
import type { Store } from "../../store/database.ts";
import type { LibraryCursors } from "./library-cursors.ts";
import { cursorScope, type EntryRow, entryColumns, entryOf, olderThan, type Page, pageOf } from "./library-entries.ts";
import { type MomentLinks, snippetsOf } from "./library-snippets.ts";

export type LibraryHit = Schema<"LibraryHit">;

/** The newest entries a search checks one by one before it reads the index of the words for the rest. */
const walkedEntries = 1_000;

/** What a library search asks. */
export interface LibrarySearch {
  query: string;
  limit: number;
  cursor?: string;
  platform?: string;
  channel?: string;
}

/** Full-text search over the words of an account's library. */
export class LibrarySearcher {
  constructor(
    private readonly store: Store,
    private readonly cursors: LibraryCursors,
  ) {}

  /**
   * A page of the account's transcripts with a passage that matches the query, the most recently
   * fetched first, each with the first moments it matched. The query is parsed once per text
   * search configuration in the account's library, and each transcript is matched with its own.
   */
  async search(accountId: string, search: LibrarySearch, links: MomentLinks): Promise<Page<LibraryHit>> {
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
    // One branch per configuration. Each first walks the newest `walkedEntries` entries and checks
    // their passages, which finds a common word at once; when fewer than a page match there, it
    // reads the words' index for the entries older than those. The planner cannot choose between
    // the two itself: it estimates a phrase as often as its words together, and walked all 100,000
    // entries of a library for a phrase in 11 of them (1.1-1.8 s; docs/performance.md).
    const branches = configs.map(({ search_config: config }) => {
      const query = sql`websearch_to_tsquery(${config}::regconfig, ${search.query})`;
      const ofAccount = sql`e.account_id = ${accountId} and e.search_config = ${config} ${after ? olderThan(after) : sql``}`;
      const filters = sql`${search.platform ? sql`and e.platform = ${search.platform}` : sql``}
                          ${search.channel ? sql`and e.channel = ${search.channel}` : sql``}`;
      const page = sql`order by e.fetched_at desc, e.id desc limit ${search.limit + 1}`;
      return sql`(with walked_until as (
                    select e.fetched_at, e.id from library_entries e where ${ofAccount}
                     order by e.fetched_at desc, e.id desc offset ${walkedEntries - 1} limit 1),
                  matched as materialized (select p.entry_id from library_passages p where p.words @@ ${query})
                  select * from (
                    (select ${entryColumns}
                       from (select * from library_entries e where ${ofAccount}
                              order by e.fetched_at desc, e.id desc limit ${walkedEntries}) e
                      where e.id in (select p.entry_id from library_passages p where p.words @@ ${query}) ${filters}
                      ${page})
                    union all
                    (select ${entryColumns} from library_entries e
                      where ${ofAccount} and e.id in (select m.entry_id from matched m) ${filters}
                        and (e.fetched_at, e.id) < (select w.fetched_at, w.id from walked_until w)
                      ${page})) walked_then_matched
                  limit ${search.limit + 1})`;
    });
    const rows = await this.store.query<EntryRow>(
      sql`select * from (${sql.join(branches, sql` union all `)}) hits
           order by (hits.fetched_micros)::bigint desc, hits.id desc
           limit ${search.limit + 1}`,
    );
    const snippets = await snippetsOf(this.store, rows.slice(0, search.limit), search.query, links);
    return pageOf(this.cursors, rows, search.limit, scope, (row) => ({
      ...entryOf(row),
      snippets: snippets.get(Number(row.id)) ?? [],
    }));
  }
}
