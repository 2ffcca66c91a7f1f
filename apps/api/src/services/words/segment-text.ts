/**
 * Line separators: those Python's `str.splitlines()` breaks at (CR, LF, VT, FF, U+001C to U+001E,
 * U+0085, U+2028, U+2029). A reader that splits a subtitle file or a printed transcript at any of
 * them would find a line, or a cue, where the source had words.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these control characters are what it finds.
const lineSeparators = /[\n\v\f\r\x1c-\x1e\x85\u2028\u2029]/g;

/** Every other control character (C0, DEL, C1) but the tab: a terminal or a player may act on it. */
const controls = /[^\P{Cc}\t]/gu;

/**
 * The text of a segment as the service keeps it, whatever source it came from (captions, a
 * publisher's transcript, speech recognition): each line separator a space, and every control
 * character but the tab removed, so that no fetched text can break a subtitle file's lines or
 * reach a terminal as an escape sequence. Text without them is kept as it is.
 */
export function ingestedText(text: string): string {
  return text.replace(lineSeparators, " ").replace(controls, "");
}
