/** Lowercased words with punctuation removed (apostrophes inside words kept), as WER compares them. */
export function normalisedWords(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}'\s]+/gu, " ")
    .replace(/(^|\s)'+|'+(?=\s|$)/g, " ")
    .split(/\s+/)
    .filter((word) => word.length > 0);
}

/**
 * Word error rate: the fewest word substitutions, deletions and insertions that turn the
 * hypothesis into the reference (Levenshtein over words), divided by the reference's length.
 */
export function wordErrorRate(reference: string, hypothesis: string): number {
  const expected = normalisedWords(reference);
  const got = normalisedWords(hypothesis);
  if (expected.length === 0) return got.length === 0 ? 0 : Number.POSITIVE_INFINITY;
  // One row of the edit-distance table at a time: distances from expected[0..i) to each prefix of got.
  let previous = Array.from({ length: got.length + 1 }, (_, j) => j);
  for (let i = 1; i <= expected.length; i++) {
    const current = [i];
    for (let j = 1; j <= got.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (expected[i - 1] === got[j - 1] ? 0 : 1);
      current.push(Math.min(substitution, (previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1));
    }
    previous = current;
  }
  return (previous[got.length] ?? 0) / expected.length;
}
