import type { components, operations } from "@verbatim/contract";
import type { SuccessBody, Verbatim } from "../client.ts";
import { Paginator } from "../pagination.ts";
import { type Result, unwrap } from "../result.ts";
import type { RequestOptions } from "../transport.ts";

/** The query of `GET /library`. */
export type LibraryQuery = NonNullable<operations["listLibrary"]["parameters"]["query"]>;
/** What `POST /library/search` takes. */
export type LibrarySearchRequest = components["schemas"]["LibrarySearchRequest"];
/** A transcript the account has fetched. */
export type LibraryEntry = components["schemas"]["LibraryEntry"];
/** A transcript that matched a library search, with its highlighted moments. */
export type LibraryHit = components["schemas"]["LibraryHit"];
/** One page of the library. */
export type LibraryPageResult = Result<SuccessBody<"listLibrary">>;
/** One page of a library search. */
export type LibrarySearchPageResult = Result<SuccessBody<"searchLibrary">>;

/** The library: every transcript the account has fetched, listed and searched in full text. Free; each page is a request. */
export class Library {
  constructor(private readonly client: Verbatim) {}

  /** One page of the library, the most recently fetched first. */
  page(query: LibraryQuery = {}, options?: RequestOptions): Promise<LibraryPageResult> {
    return unwrap(
      this.client.raw.GET("/library", {
        params: { query },
        signal: options?.signal,
        fetch: this.client.fetchFor(options),
      }),
    );
  }

  /** Every transcript of the library, the most recently fetched first, page after page. */
  list(query: LibraryQuery = {}, options?: RequestOptions): Paginator<LibraryPageResult["data"], LibraryEntry> {
    const { cursor, ...rest } = query;
    return new Paginator(
      (next) => this.page({ ...rest, cursor: next }, options),
      (page) => page.entries,
      cursor,
    );
  }

  /** One page of a search of the library's words. */
  searchPage(request: LibrarySearchRequest, options?: RequestOptions): Promise<LibrarySearchPageResult> {
    return unwrap(
      this.client.raw.POST("/library/search", {
        body: request,
        signal: options?.signal,
        fetch: this.client.fetchFor(options),
      }),
    );
  }

  /** Every transcript matching a search, the most recently fetched first, page after page. */
  search(
    request: LibrarySearchRequest,
    options?: RequestOptions,
  ): Paginator<LibrarySearchPageResult["data"], LibraryHit> {
    const { cursor, ...rest } = request;
    return new Paginator(
      (next) => this.searchPage({ ...rest, cursor: next }, options),
      (page) => page.hits,
      cursor,
    );
  }
}
