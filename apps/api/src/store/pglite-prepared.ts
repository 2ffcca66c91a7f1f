import { messages, type ParserOptions, type PGlite, type Results, types } from "@electric-sql/pglite";

/** A value a prepared statement on PGlite takes: sent as text, as PGlite's own serializers write these. */
export type PreparedValue = string | number | boolean | null;

/** Runs a named statement's text with its values on one PGlite session, and answers as PGlite's `query` would. */
export type PreparedStatementRunner = (
  name: string,
  text: string,
  values: readonly PreparedValue[],
  parsers?: ParserOptions,
) => Promise<Results<Record<string, unknown>>>;

/**
 * Named prepared statements on PGlite, which 0.5.14's `query` does not have: it sends Parse,
 * Describe, Bind, Describe, Execute and Sync one call into the WebAssembly each and parses and
 * plans the text every time (docs/performance.md, "/me on PGlite"). Here a statement is parsed
 * once per session under its name, and each run is one call: Bind, Describe, Execute and Sync
 * together. `inTurn` runs the work when the session is the caller's (the store's turns); inside
 * it, PGlite's own locks keep it out of another caller's transaction, as `query` does.
 */
export function preparedStatementsOn(
  pglite: PGlite,
  inTurn: <T>(run: () => Promise<T>) => Promise<T>,
): PreparedStatementRunner {
  const parsed = new Set<string>();
  let defaultParsers: ParserOptions | undefined;
  return (name, text, values, parsers) =>
    inTurn(async () => {
      await pglite._checkReady();
      return pglite._runExclusiveTransaction(() =>
        pglite._runExclusiveQuery(async () => {
          if (!parsed.has(name)) {
            await pglite.execProtocolStream(frontendMessages.parse(name, text), { syncToFs: false });
            parsed.add(name);
          }
          const replies = await pglite.execProtocolStream(frontendMessages.run(name, values), { syncToFs: true });
          defaultParsers ??= { ...types.parsers, ...pglite.parsers };
          return resultsOf(replies, parsers ?? {}, defaultParsers);
        }),
      );
    });
}

/** Whether a value can be bound as `PreparedStatementRunner` sends values. */
export function isPreparedValue(value: unknown): value is PreparedValue {
  return value === null || typeof value === "string" || typeof value === "number" || typeof value === "boolean";
}

/** The replies as PGlite's `query` answers them: rows as objects, each value parsed by its type. */
function resultsOf(
  replies: readonly messages.BackendMessage[],
  parsers: ParserOptions,
  defaultParsers: ParserOptions,
): Results<Record<string, unknown>> {
  let fields: { name: string; dataTypeID: number }[] = [];
  const rows: Record<string, unknown>[] = [];
  let affectedRows = 0;
  for (const reply of replies) {
    if (reply instanceof messages.RowDescriptionMessage) {
      fields = reply.fields.map(({ name, dataTypeID }) => ({ name, dataTypeID }));
    } else if (reply instanceof messages.DataRowMessage) {
      const row: Record<string, unknown> = {};
      reply.fields.forEach((value, index) => {
        const field = fields[index];
        if (!field) return;
        const parse = parsers[field.dataTypeID] ?? defaultParsers[field.dataTypeID];
        row[field.name] =
          value === null
            ? null
            : parse
              ? (parse as (text: string, type: number) => unknown)(value, field.dataTypeID)
              : value;
      });
      rows.push(row);
    } else if (reply instanceof messages.CommandCompleteMessage) {
      const words = reply.text.split(" ");
      if (["INSERT", "UPDATE", "DELETE", "MERGE"].includes(words[0] ?? "")) affectedRows += Number(words.at(-1));
    }
  }
  return { rows, fields, affectedRows };
}

/** The frontend messages of the extended query protocol a prepared statement needs, in text format. */
const frontendMessages = {
  /** Parse the text as the named statement, its parameters' types inferred, then Sync. */
  parse(name: string, text: string): Uint8Array {
    const body = new MessageBody().cstring(name).cstring(text).int16(0);
    return Buffer.concat([body.message("P"), sync]);
  },
  /** Bind the values to the named statement in the unnamed portal, describe and execute it, then Sync. */
  run(name: string, values: readonly PreparedValue[]): Uint8Array {
    const bind = new MessageBody().cstring("").cstring(name).int16(0).int16(values.length);
    for (const value of values) bind.value(value === null ? null : String(value));
    bind.int16(0);
    return Buffer.concat([bind.message("B"), describePortal, execute, sync]);
  },
};

/** A message's body, written field by field; `message` prefixes its type and length. */
class MessageBody {
  private readonly parts: Buffer[] = [];

  cstring(text: string): this {
    this.parts.push(Buffer.from(`${text}\0`, "utf8"));
    return this;
  }

  /** One byte: a single-letter code. */
  letter(code: string): this {
    this.parts.push(Buffer.from(code, "latin1"));
    return this;
  }

  int32(value: number): this {
    const part = Buffer.alloc(4);
    part.writeInt32BE(value);
    this.parts.push(part);
    return this;
  }

  int16(value: number): this {
    const part = Buffer.alloc(2);
    part.writeInt16BE(value);
    this.parts.push(part);
    return this;
  }

  /** A parameter's value as text, or SQL null. */
  value(text: string | null): this {
    const length = Buffer.alloc(4);
    if (text === null) {
      length.writeInt32BE(-1);
      this.parts.push(length);
      return this;
    }
    const bytes = Buffer.from(text, "utf8");
    length.writeInt32BE(bytes.length);
    this.parts.push(length, bytes);
    return this;
  }

  message(type: string): Buffer {
    const body = Buffer.concat(this.parts);
    const head = Buffer.alloc(5);
    head.write(type, 0, "latin1");
    head.writeInt32BE(body.length + 4, 1);
    return Buffer.concat([head, body]);
  }
}

const describePortal = new MessageBody().letter("P").cstring("").message("D");
const execute = new MessageBody().cstring("").int32(0).message("E");
const sync = new MessageBody().message("S");
