import type { Listing, ListingRequest, ListingSource } from "./listing-source.ts";
import { SourceError } from "./source-error.ts";

/** What the registry found for a list request. */
export type ListingMatch =
  /** The list and the source that reads it. */
  | { listing: Listing }
  /** A source claimed the input but reads no list there; the error says why. */
  | { refusal: SourceError }
  /** No source claims the input; `accepted` says, per source, what it would have taken. */
  | { unmatched: { accepted: readonly string[] } };

/**
 * The listing sources of a server, asked in order: the first that claims a request's input
 * reads it. Services ask this registry and never which platform a list is on. Adding a platform
 * that lists is a source and one entry here; the catch-all sources (any other address read as a
 * feed) come last.
 */
export class ListingRegistry {
  constructor(private readonly members: readonly ListingSource[]) {}

  match(request: ListingRequest): ListingMatch {
    for (const source of this.members) {
      const found = source.match(request);
      if (found instanceof SourceError) return { refusal: found };
      if (found) return { listing: found };
    }
    return {
      unmatched: {
        accepted: this.members.flatMap((source) => {
          const accepted = source.accepts[request.kind];
          return accepted === undefined ? [] : [accepted];
        }),
      },
    };
  }

  /** The search platforms some source serves, in the registry's order. */
  searchPlatforms(): string[] {
    return this.members.flatMap((source) => source.searchPlatforms);
  }
}
