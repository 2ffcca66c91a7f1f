import { PGlite } from "@electric-sql/pglite";
import pg from "pg";

/** Counts the statements the process sends to either database driver. */
export interface QueryCounter {
  readonly count: number;
  reset(): void;
}

/**
 * Wraps the drivers' entry points (PGlite `query`/`exec` and its transactions' own, node-postgres
 * `Client#query`, which `Pool#query` uses) so every database round trip is counted, whichever
 * layer issued it: `Store.query`, Drizzle builders or transactions alike, `BEGIN` and `COMMIT` as
 * node-postgres sends them. Call once, before opening a store.
 */
export function countQueries(): QueryCounter {
  let count = 0;
  const pgliteQuery = PGlite.prototype.query;
  PGlite.prototype.query = function (this: PGlite, ...args: Parameters<PGlite["query"]>) {
    count += 1;
    return pgliteQuery.apply(this, args);
  } as typeof pgliteQuery;
  const pgliteExec = PGlite.prototype.exec;
  PGlite.prototype.exec = function (this: PGlite, ...args: Parameters<PGlite["exec"]>) {
    count += 1;
    return pgliteExec.apply(this, args);
  } as typeof pgliteExec;
  // A PGlite transaction runs its statements, BEGIN and its end past `query` and `exec`.
  const pgliteTransaction = PGlite.prototype.transaction;
  PGlite.prototype.transaction = function <T>(this: PGlite, callback: Parameters<PGlite["transaction"]>[0]) {
    count += 2;
    return pgliteTransaction.call(this, (tx) => {
      const { query, exec } = tx;
      tx.query = (...args: Parameters<typeof query>) => {
        count += 1;
        return query(...args);
      };
      tx.exec = (...args: Parameters<typeof exec>) => {
        count += 1;
        return exec(...args);
      };
      return callback(tx);
    }) as Promise<T>;
  } as typeof pgliteTransaction;
  // A prepared statement of the embedded store (src/store/pglite-prepared.ts) runs past `query`, as
  // one call of its Bind with the Execute after it; PGlite's `query` sends its Bind alone.
  const pgliteProtocol = PGlite.prototype.execProtocolStream;
  PGlite.prototype.execProtocolStream = function (this: PGlite, ...args: Parameters<PGlite["execProtocolStream"]>) {
    if (runsPreparedStatement(args[0])) count += 1;
    return pgliteProtocol.apply(this, args);
  } as typeof pgliteProtocol;
  const clientQuery = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    count += 1;
    return (clientQuery as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof clientQuery;
  return {
    get count() {
      return count;
    },
    reset() {
      count = 0;
    },
  };
}

/** Whether a batch of frontend messages is a Bind ('B') followed by more messages. */
function runsPreparedStatement(message: Uint8Array): boolean {
  if (message[0] !== 0x42 || message.length < 5) return false;
  const bindLength = new DataView(message.buffer, message.byteOffset, message.byteLength).getUint32(1);
  return message.length > 1 + bindLength;
}
