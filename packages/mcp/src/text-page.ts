import type { JsonSchema } from "./contract-schemas.ts";

/** Characters of transcript text one result holds when the call does not say. */
export const defaultMaxChars = 20_000;
/** The most one result may hold: a model's context is the limit, not the API's. */
export const largestMaxChars = 100_000;
/** The least: smaller pages cost a call (and a credit) per page for little text. */
export const smallestMaxChars = 100;

/** A stretch of a transcript's text, and where the next one starts. */
export interface TextPage {
  text: string;
  offset: number;
  total_chars: number;
  truncated: boolean;
  next_offset: number | null;
}

// Paging is the MCP server's own: the API answers a transcript whole, and a model's context cannot
// always hold it. These fields exist only here, so they are defined here rather than in spec/.

/** The paging arguments a transcript tool takes beside the contract's fields. */
export const pagingInputProperties: Record<string, JsonSchema> = {
  max_chars: {
    type: "integer",
    minimum: smallestMaxChars,
    maximum: largestMaxChars,
    default: defaultMaxChars,
    description: `The most characters of transcript text to return, ${smallestMaxChars} to ${largestMaxChars}. Default ${defaultMaxChars}.`,
  },
  offset: {
    type: "integer",
    minimum: 0,
    default: 0,
    description:
      "Where the returned text starts, in characters: 0, or the `next_offset` of a truncated result to read on.",
  },
};

/** The paging fields of a transcript result. */
export const pagingOutputProperties: Record<string, JsonSchema> = {
  text: { type: "string", description: "The transcript text from `offset`, at most `max_chars` characters." },
  offset: { type: "integer", minimum: 0, description: "Where `text` starts in the whole transcript, in characters." },
  total_chars: { type: "integer", minimum: 0, description: "Characters in the whole transcript text." },
  truncated: { type: "boolean", description: "Whether text follows this page: call again with `offset: next_offset`." },
  next_offset: {
    anyOf: [{ type: "integer", minimum: 0 }, { type: "null" }],
    description: "The `offset` of the next page; `null` when this page reaches the end.",
  },
};

/**
 * The stretch of `whole` from `offset`, at most `maxChars` long. Counted in code points, so a page
 * never splits a character that UTF-16 holds in two units.
 */
export function pageOf(whole: string, offset: number, maxChars: number): TextPage {
  const characters = Array.from(whole);
  const start = Math.min(offset, characters.length);
  const end = Math.min(start + maxChars, characters.length);
  const truncated = end < characters.length;
  return {
    text: characters.slice(start, end).join(""),
    offset: start,
    total_chars: characters.length,
    truncated,
    next_offset: truncated ? end : null,
  };
}
