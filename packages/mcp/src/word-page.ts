import type { Segment } from "@verbatim/sdk";
import type { TextPage } from "./text-page.ts";

type Word = NonNullable<Segment["words"]>[number];

/**
 * The timed words of the segments that begin in a page of their text (`whole`, paged by `pageOf`):
 * each word is found in `whole` after the one before it, and counted in code points as pages are,
 * so every word belongs to exactly one page. A word the text does not hold is left out.
 */
export function wordsInPage(whole: string, segments: readonly Segment[], page: TextPage): Word[] {
  const pageEnd = page.offset + Array.from(page.text).length;
  const words: Word[] = [];
  let searchedTo = 0;
  let characters = 0;
  for (const word of segments.flatMap((segment) => segment.words ?? [])) {
    const at = whole.indexOf(word.text, searchedTo);
    if (at < 0) continue;
    const start = characters + Array.from(whole.slice(searchedTo, at)).length;
    if (start >= page.offset && start < pageEnd) words.push(word);
    characters = start + Array.from(word.text).length;
    searchedTo = at + word.text.length;
  }
  return words;
}
