import type { components } from "@verbatim/contract";
import type { Result } from "./result.ts";

/** A page of a cursor-paginated list, as the API answers it. */
interface CursorPage {
  next_cursor: string | null;
}

/** One page's result: the page, what it cost, and the response's metadata. */
export type PageResult<Page> = Result<{ data: Page; usage: components["schemas"]["Usage"] }>;

/**
 * A list read lazily: `for await (const item of list)` yields every item across pages, following
 * `next_cursor` until the API answers `null` (the end, or the `since_video_id` marker);
 * `list.pages()` yields the pages themselves, with their usage and metadata. Nothing is fetched
 * until it is iterated, and breaking out of the loop fetches no further page.
 */
export class Paginator<Page extends CursorPage, Item> implements AsyncIterable<Item> {
  constructor(
    private readonly fetchPage: (cursor: string | undefined) => Promise<PageResult<Page>>,
    private readonly itemsOf: (page: Page) => Item[],
    private readonly firstCursor?: string,
  ) {}

  /** Every page in order, starting at the cursor the list was opened with. */
  async *pages(): AsyncGenerator<PageResult<Page>, void, undefined> {
    let cursor = this.firstCursor;
    do {
      const page = await this.fetchPage(cursor);
      yield page;
      cursor = page.data.next_cursor ?? undefined;
    } while (cursor !== undefined);
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Item, void, undefined> {
    for await (const page of this.pages()) yield* this.itemsOf(page.data);
  }

  /** Reads the whole list into an array; `max` stops after that many items. */
  async toArray(max = Number.POSITIVE_INFINITY): Promise<Item[]> {
    const items: Item[] = [];
    if (max <= 0) return items;
    for await (const item of this) {
      items.push(item);
      if (items.length >= max) break;
    }
    return items;
  }
}
