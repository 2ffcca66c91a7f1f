import type { Schema } from "@verbatim/contract";

type Segment = Schema<"Segment">;

/** Seconds as whole milliseconds: word and segment times are kept to the millisecond. */
function ms(seconds: number): number {
  return Math.round(seconds * 1000);
}

/**
 * How a segment's words break the rules every word time keeps, whatever its source; none when
 * they keep them: the words, joined by single spaces, give the text (each run of white space in
 * it read as one space); each word is there, without white space; each starts no earlier than the
 * one before it; each lies inside the segment, to the millisecond.
 */
export function wordRuleBreaches(segment: Segment): string[] {
  const { words } = segment;
  if (words === undefined) return ["the segment has no words"];
  const breaches: string[] = [];
  const spelled = segment.text.split(/\s+/).filter((word) => word !== "");
  if (words.map((word) => word.text).join(" ") !== spelled.join(" ")) {
    breaches.push(
      `the words ${JSON.stringify(words.map((word) => word.text))} do not give ${JSON.stringify(segment.text)}`,
    );
  }
  const start = ms(segment.start);
  const end = ms(segment.start + segment.duration);
  let previous = start;
  for (const word of words) {
    if (word.text === "" || /\s/.test(word.text)) breaches.push(`${JSON.stringify(word.text)} is no word`);
    if (word.duration < 0) breaches.push(`${word.text} lasts ${word.duration} s`);
    if (ms(word.start) < previous) breaches.push(`${word.text} at ${word.start} s starts before the word before it`);
    if (ms(word.start) < start || ms(word.start + word.duration) > end) {
      breaches.push(
        `${word.text} at ${word.start} s for ${word.duration} s lies outside ${segment.start} to ${segment.start + segment.duration} s`,
      );
    }
    previous = Math.max(previous, ms(word.start));
  }
  return breaches;
}

/** The breaches of every segment's words, each with its segment's index. */
export function transcriptWordBreaches(segments: readonly Segment[]): string[] {
  return segments.flatMap((segment, index) => wordRuleBreaches(segment).map((breach) => `segment ${index}: ${breach}`));
}
