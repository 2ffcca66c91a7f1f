import { hash } from "node:crypto";
import type { SQL } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import type { DatabaseOrTransaction } from "./database.ts";

const dialect = new PgDialect();

/** Each statement text's name, so a text is hashed once per process. */
const namesByText = new Map<string, string>();

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

/**
 * Runs one statement as a named prepared statement and answers its rows. On PostgreSQL each pooled
 * connection parses and plans the text once and then only binds the values (docs/performance.md:
 * planning the store hit's statement took 0.3-0.4 ms a hit); PGlite's driver has no named
 * statements and runs it as `execute` would. Only for hot statements of a fixed set of shapes:
 * each shape stays prepared on every connection for the connection's life.
 */
export async function executePrepared<Row>(db: DatabaseOrTransaction, statement: SQL): Promise<Row[]> {
  const query = dialect.sqlToQuery(statement);
  const result = await db._.session.prepareQuery(query, undefined, preparedNameOf(query.sql), false).execute();
  return (result as { rows: Row[] }).rows;
}
