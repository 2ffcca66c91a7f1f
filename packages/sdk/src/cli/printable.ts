/**
 * What the command line prints comes from the server, and a transcript's words from whatever
 * upstream its source read: a caption can hold a terminal's escape sequences (OSC 52 writes the
 * clipboard, OSC 0 the window title, OSC 8 a link whose text disguises it, CSI 2J clears the
 * screen). The server removes control characters from segments it reads now; what it stored
 * before still holds them. So every document and line the command prints is neutralised here,
 * whether it goes to a terminal, a pipe or a file (which a terminal may show later).
 */

/** A control character (C0, DEL, C1) other than the tab and the line feed a document is made of. */
const controls = /[^\P{Cc}\t\n]/gu;

/** Shown in place of each control character: the escape's introducer is gone, its rest is plain text. */
const controlPlaceholder = "\ufffd";

/** Text for people (a transcript, subtitles, a row, an error), each control character shown as U+FFFD. */
export function printable(text: string): string {
  return text.replace(controls, controlPlaceholder);
}

/**
 * What `JSON.stringify` leaves raw: DEL and C1, which a terminal may act on, and U+2028 and
 * U+2029, line breaks to some readers.
 */
const rawInJson = /[\u007f-\u009f\u2028\u2029]/g;

/**
 * A value as JSON that holds no control character: `JSON.stringify` escapes C0 itself, and these
 * are written as `\uXXXX` escapes too, so the data a program parses stays exactly the same.
 */
export function printableJson(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent).replace(
    rawInJson,
    (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
