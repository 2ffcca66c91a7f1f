/**
 * Scanners for the markup of fetched documents (caption XML, cue text). Each looks at every
 * character a bounded number of times: a backtracking pattern such as `/<[^>]*>/g` costs
 * quadratic time over a body of many `<`, and fetched bodies are written by whoever serves them.
 */

/** The text without its tags: everything from a `<` to the next `>`, as `/<[^>]*>/g` would remove. */
export function withoutTags(text: string): string {
  let kept = "";
  let at = 0;
  for (;;) {
    const open = text.indexOf("<", at);
    if (open < 0) return kept + text.slice(at);
    const close = text.indexOf(">", open + 1);
    // Without a ">" after this "<", no later "<" closes either.
    if (close < 0) return kept + text.slice(at);
    kept += text.slice(at, open);
    at = close + 1;
  }
}

/** One `<name ...>content</name>` or `<name .../>` element of a document. */
export interface ScannedElement {
  /** What stands between the name and the tag's end, such as ` start="1.2" dur="3"`. */
  attributes: string;
  /** What stands between the tags, markup included; null for a self-closing element. */
  content: string | null;
  /** Where the element begins (its `<`) and where what follows it begins, in the document. */
  from: number;
  to: number;
}

/**
 * The elements of one name, in document order, without nesting: an element's content runs to the
 * first closing tag of its name, as `/<name\b([^>]*)>([\s\S]*?)<\/name>/g` reads them.
 */
export function* elementsNamed(body: string, name: string, options: { selfClosing?: boolean } = {}) {
  const opening = `<${name}`;
  const closing = `</${name}>`;
  let at = 0;
  for (;;) {
    const open = body.indexOf(opening, at);
    if (open < 0) return;
    const afterName = open + opening.length;
    if (/[\w:-]/.test(body.charAt(afterName))) {
      at = afterName;
      continue;
    }
    const tagEnd = body.indexOf(">", afterName);
    if (tagEnd < 0) return;
    const selfClosed = body.charAt(tagEnd - 1) === "/";
    if (selfClosed && options.selfClosing) {
      yield {
        attributes: body.slice(afterName, tagEnd - 1),
        content: null,
        from: open,
        to: tagEnd + 1,
      } satisfies ScannedElement;
      at = tagEnd + 1;
      continue;
    }
    const end = body.indexOf(closing, tagEnd + 1);
    // Without a closing tag after this one, no later element closes either.
    if (end < 0) return;
    yield {
      attributes: body.slice(afterName, tagEnd),
      content: body.slice(tagEnd + 1, end),
      from: open,
      to: end + closing.length,
    } satisfies ScannedElement;
    at = end + closing.length;
  }
}

/** The `name="value"` pairs of a tag's attributes; single-quoted and bare values are not read. */
export function attributesOf(source: string): Record<string, string> {
  const attributes: Record<string, string> = {};
  // The lookbehind starts a name only where a name can start, so a long run of name characters is
  // tried once; the bound keeps that try's backtracking short, and no attribute name is that long.
  for (const match of source.matchAll(/(?<![\w:-])([\w:-]{1,256})="([^"]*)"/g)) {
    if (match[1] !== undefined && match[2] !== undefined) attributes[match[1]] = match[2];
  }
  return attributes;
}
