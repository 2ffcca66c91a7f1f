/** One word and when it is spoken, in seconds from the start of the media: the wire's `Word`. */
export interface TimedWord {
  text: string;
  start: number;
  duration: number;
}

/**
 * A stretch of a cue's text and the time it starts, as a format times it: a json3 `seg`, an srv3
 * `<s>`, the text after a WebVTT cue timestamp (`<00:00:01.200>`), a recognizer's token.
 */
export interface TimedPiece {
  text: string;
  start: number;
}

/** White space, as the segments' texts are split and collapsed at it. */
const blank = /\s/;

/**
 * The words of a cue's timed pieces: their text split at white space, each word timed by the
 * piece it begins in. A word lasts until the next one begins, the last until `end`. A word that
 * runs over several pieces (a recognizer's word in several tokens, a line of Japanese in several
 * segs) takes the start of the first. Times are rounded to the millisecond; a piece that starts
 * before the one it follows is taken to start with it.
 */
export function wordsOfPieces(pieces: readonly TimedPiece[], end: number): TimedWord[] {
  const words: TimedWord[] = [];
  let open: TimedWord | null = null;
  let latest = Number.NEGATIVE_INFINITY;
  for (const piece of pieces) {
    latest = Math.max(latest, piece.start);
    for (const character of piece.text) {
      if (blank.test(character)) {
        open = null;
        continue;
      }
      if (open === null) {
        open = { text: "", start: latest, duration: 0 };
        words.push(open);
      }
      open.text += character;
    }
  }
  return words.map((word, index) => {
    const start = milliseconds(word.start);
    const until = milliseconds(Math.max(words[index + 1]?.start ?? end, word.start));
    return { text: word.text, start, duration: milliseconds(until - start) };
  });
}

function milliseconds(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}
