import { SQL, StringChunk, Table } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import type { DatabaseOrTransaction } from "./database.ts";
import { preparedNameOf } from "./prepared-names.ts";

const dialect = new PgDialect();

/** A statement's text as drizzle-orm builds it, and the name it is prepared under. */
interface BuiltText {
  text: string;
  name: string;
}

/**
 * One step of a statement's shape: what follows it, and at the end of a shape, its text. A shape
 * is the sequence of the statement's text pieces (the template's strings, by value), tables, and
 * the places of its values; two statements of one shape have one text.
 */
interface ShapeStep {
  next: Map<unknown, ShapeStep>;
  built?: BuiltText;
}

/** Where a value of the statement stands in its shape. */
const valueMark = Symbol("value");

const shapes: ShapeStep = { next: new Map() };

/**
 * Walks `chunks` from `step` along the statement's shape, collecting its values in order into
 * `values`: each value is a parameter as drizzle-orm passes it (a plain value, unencoded). Answers
 * the step the walk ends on, or `undefined` for a chunk whose text or parameters drizzle-orm
 * derives otherwise (an encoded `Param`, a placeholder, a column, inlined values, a list): such a
 * statement is built in full.
 */
function walkShape(chunks: readonly unknown[], from: ShapeStep, values: unknown[]): ShapeStep | undefined {
  let step = from;
  for (const chunk of chunks) {
    let key: unknown;
    if (chunk instanceof StringChunk) {
      if (chunk.value.length !== 1) return undefined;
      key = chunk.value[0];
    } else if (chunk instanceof SQL) {
      // `sql.inlineParams()` writes its values into the text (drizzle-orm keeps the flag private).
      if ((chunk as unknown as { shouldInlineParams: boolean }).shouldInlineParams) return undefined;
      const inner = walkShape(chunk.queryChunks, step, values);
      if (!inner) return undefined;
      step = inner;
      continue;
    } else if (chunk === undefined) {
      continue;
    } else if (chunk === null || typeof chunk === "string" || typeof chunk === "number" || typeof chunk === "boolean") {
      values.push(chunk);
      key = valueMark;
    } else if (chunk instanceof Table) {
      key = chunk;
    } else {
      return undefined;
    }
    let next = step.next.get(key);
    if (!next) {
      next = { next: new Map() };
      step.next.set(key, next);
    }
    step = next;
  }
  return step;
}

/**
 * A statement's text, name and parameters. drizzle-orm builds a statement's text anew on every
 * call, and the name's lookup then hashes that fresh text (docs/performance.md: 4.4 % of a store
 * hit's server CPU); a hot statement's text depends only on its shape, so it is built once per
 * shape and each call only collects its values.
 */
export function preparedQueryOf(statement: SQL): { text: string; name: string; params: unknown[] } {
  const values: unknown[] = [];
  const step = walkShape(statement.queryChunks, shapes, values);
  if (step?.built) return { ...step.built, params: values };
  const query = dialect.sqlToQuery(statement);
  const built = { text: query.sql, name: preparedNameOf(query.sql) };
  if (step && sameValues(query.params, values)) step.built = built;
  return { ...built, params: query.params };
}

function sameValues(built: readonly unknown[], walked: readonly unknown[]): boolean {
  return built.length === walked.length && built.every((value, index) => value === walked[index]);
}

/**
 * Runs one statement as a named prepared statement and answers its rows. On PostgreSQL each pooled
 * connection parses and plans the text once and then only binds the values (docs/performance.md:
 * planning the store hit's statement took 0.3-0.4 ms a hit). PGlite's driver has no named
 * statements: the embedded store's session runs the texts named here as its own prepared
 * statements (`preparedStatementsOn`), outside transactions. Only for
 * hot statements of a fixed set of shapes: each shape stays prepared on every connection for the
 * connection's life.
 */
export async function executePrepared<Row>(db: DatabaseOrTransaction, statement: SQL): Promise<Row[]> {
  const { text, name, params } = preparedQueryOf(statement);
  const result = await db._.session.prepareQuery({ sql: text, params }, undefined, name, false).execute();
  return (result as { rows: Row[] }).rows;
}
