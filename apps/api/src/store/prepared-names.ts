import { hash } from "node:crypto";

/** Each statement text's name, so a text is hashed once per process. */
const namesByText = new Map<string, string>();

/**
 * The name `preparedNameOf` gave a text, `undefined` for a text it never named: the embedded
 * store runs the named texts (those `executePrepared` ran) as its own prepared statements.
 */
export function preparedNameOfRunText(text: string): string | undefined {
  return namesByText.get(text);
}

/**
 * The name a statement's text is prepared under: node-postgres refuses one name for two texts on
 * a connection, so the name is the text's hash and a statement whose shape varies gets one name
 * per shape.
 */
export function preparedNameOf(text: string): string {
  let name = namesByText.get(text);
  if (name === undefined) {
    name = `verbatim_${hash("sha1", text, "hex").slice(0, 24)}`;
    namesByText.set(text, name);
  }
  return name;
}
