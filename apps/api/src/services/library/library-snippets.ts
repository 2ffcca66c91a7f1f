import type { Schema } from "@verbatim/contract";
import { sql } from "drizzle-orm";
import type { SourceRegistry } from "../../sources/registry.ts";
import type { Store } from "../../store/database.ts";
import type { EntryRow } from "./library-entries.ts";

type Snippet = Schema<"LibrarySnippet">;

/** Where a passage's moment opens: the link of the source that serves the entry's platform (`SourceRegistry.linkAt`). */
export type MomentLinks = Pick<SourceRegistry, "linkAt">;

/** Snippets a hit carries, and how much text surrounds a snippet's first match. */
const snippetsPerHit = 3;
const snippetCharactersBefore = 80;
const snippetCharactersAfter = 200;

/** ts_headline's match markers: control characters, which `passagesOf` strips from the text. */
const matchStart = "\u0002";
const matchEnd = "\u0003";

interface SnippetRow {
  entry_id: number | string;
  marked: string;
  segment_starts: number[];
  segment_offsets: number[];
  /** Each word's start, word by word as the passage's text splits at spaces; null when the source did not time them. */
  word_starts: number[] | null;
}

/**
 * The first matching passages of each entry, highlighted, with a link to the moment each begins;
 * only the page's entries pay for `ts_headline`.
 */
export async function snippetsOf(
  store: Store,
  entries: EntryRow[],
  query: string,
  links: MomentLinks,
): Promise<Map<number, Snippet[]>> {
  const snippets = new Map<number, Snippet[]>();
  if (entries.length === 0) return snippets;
  const ids = entries.map((entry) => Number(entry.id));
  const rows = await store.query<SnippetRow>(
    sql`select e.id as entry_id, p.segment_starts, p.segment_offsets, p.word_starts,
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
      url: source?.url ? links.linkAt(source.url, source.platform, found.start) : null,
      highlight: found.highlight,
    });
    snippets.set(id, list);
  }
  return snippets;
}

/**
 * Where the passage's first match begins (its word's start where the passage keeps word times,
 * else its segment's), and the text around that match as HTML. `marked` is the whole passage
 * with each matched word between `matchStart` and `matchEnd` (`HighlightAll`): nothing precedes
 * the first marker, so its index is its place in the passage, the spaces before it count the
 * words before it (the passage's words are one space apart), and a marked word holds no space,
 * so a window cut at spaces never splits a mark.
 */
function snippetOf(row: SnippetRow): { start: number; highlight: string } {
  const { marked } = row;
  const firstMark = marked.indexOf(matchStart);
  const matchOffset = firstMark === -1 ? 0 : firstMark;
  let segment = 0;
  for (let index = 0; index < row.segment_offsets.length; index++) {
    if ((row.segment_offsets[index] ?? 0) <= matchOffset) segment = index;
  }
  const wordsBefore = marked.slice(0, matchOffset).split(" ").length - 1;
  const start = row.word_starts?.[wordsBefore] ?? row.segment_starts[segment] ?? 0;
  const from = wordBoundaryBefore(marked, Math.max(0, matchOffset - snippetCharactersBefore));
  const to = wordBoundaryAfter(marked, Math.min(marked.length, matchOffset + snippetCharactersAfter));
  const window = marked.slice(from, to).trim();
  const highlight = `${from > 0 ? "… " : ""}${escapeHtml(window)
    .replaceAll(matchStart, "<mark>")
    .replaceAll(matchEnd, "</mark>")}${to < marked.length ? " …" : ""}`;
  return { start, highlight };
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
