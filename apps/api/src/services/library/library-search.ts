import type { Schema } from "@verbatim/contract";
import { sql } from "drizzle-orm";
import type { Store } from "../../store/database.ts";
import type { LibraryCursors } from "./library-cursors.ts";
import { cursorScope, type EntryRow, entryColumns, entryOf, olderThan, type Page, pageOf } from "./library-entries.ts";
import { type MomentLinks, snippetsOf } from "./library-snippets.ts";

export type LibraryHit = Schema<"LibraryHit">;

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
    const snippets = await snippetsOf(this.store, rows.slice(0, search.limit), search.query, links);
    return pageOf(this.cursors, rows, search.limit, scope, (row) => ({
      ...entryOf(row),
      snippets: snippets.get(Number(row.id)) ?? [],
    }));
  }
}
