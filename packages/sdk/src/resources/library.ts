import type { components, operations } from "@verbatim/contract";
import { type BareOr, bodyOf } from "../bare.ts";
import { Paginator } from "../pagination.ts";
import { ApiResource } from "../resource.ts";
import { type Result, type SuccessBody, unwrap } from "../result.ts";
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
/** The query of `GET /library/{id}`: the form of the transcript and its chunks. */
export type LibraryTranscriptQuery = NonNullable<operations["getLibraryTranscript"]["parameters"]["query"]>;
/** A transcript of the library, in the form asked. */
export type LibraryTranscriptResult = Result<SuccessBody<"getLibraryTranscript">>;
/** One page of a library search. */
export type LibrarySearchPageResult = Result<SuccessBody<"searchLibrary">>;

/** The library: every transcript the account has fetched, listed and searched in full text. Free; each page is a request. */
export class Library extends ApiResource {
  /** One page of the library, the most recently fetched first. */
  page(query: LibraryQuery = {}, options?: RequestOptions): Promise<LibraryPageResult> {
    return unwrap(
      this.client.raw.GET("/library", {
        params: { query },
        ...this.callInit(options),
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

  /**
   * A transcript the account fetched before (its entry's `id`, `<platform>:<video_id>`), in any
   * format `transcripts.video` writes, with chunks if asked. Free: nothing is fetched again.
   */
  get(id: string, query: LibraryTranscriptQuery = {}, options?: RequestOptions): Promise<LibraryTranscriptResult> {
    return unwrap(
      this.client.raw.GET("/library/{id}", {
        params: { path: { id }, query },
        ...this.callInit(options),
      }),
    );
  }

  /** One page of a search of the library's words. A string is the `query`. */
  searchPage(request: BareOr<LibrarySearchRequest>, options?: RequestOptions): Promise<LibrarySearchPageResult> {
    return unwrap(
      this.client.raw.POST("/library/search", {
        body: bodyOf<LibrarySearchRequest>(request, "query"),
        ...this.callInit(options),
      }),
    );
  }

  /** Every transcript matching a search, the most recently fetched first, page after page. A string is the `query`. */
  search(
    request: BareOr<LibrarySearchRequest>,
    options?: RequestOptions,
  ): Paginator<LibrarySearchPageResult["data"], LibraryHit> {
    const { cursor, ...rest } = bodyOf<LibrarySearchRequest>(request, "query");
    return new Paginator(
      (next) => this.searchPage({ ...rest, cursor: next }, options),
      (page) => page.hits,
      cursor,
    );
  }
}
