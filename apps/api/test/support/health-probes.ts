import type { Query } from "drizzle-orm";
import type { PgPreparedQuery, PreparedQueryConfig } from "drizzle-orm/pg-core";
import type { TestServer } from "./server.ts";

type PreparedQuery = PgPreparedQuery<PreparedQueryConfig>;

/**
 * Runs `then` each time a statement whose SQL `matches` answers on the server's store, before the
 * code that sent it reads the answer, until the returned function is called. It watches the
 * session of the store's Drizzle database, which every statement is prepared through: `execute`,
 * `Store.query` and the named statements of `executePrepared` alike.
 */
export function afterStatements(
  server: TestServer,
  matches: (sql: string) => boolean,
  then: () => Promise<void> | void,
): () => void {
  const { session } = server.platform.store.db._;
  const prepareQuery = session.prepareQuery;
  session.prepareQuery = ((query: Query, ...rest: unknown[]) => {
    const prepared = (prepareQuery as (...args: unknown[]) => PreparedQuery).call(session, query, ...rest);
    const execute = prepared.execute.bind(prepared);
    prepared.execute = (async (...args: unknown[]) => {
      const result = await (execute as (...args: unknown[]) => Promise<unknown>)(...args);
      if (matches(query.sql)) await then();
      return result;
    }) as typeof prepared.execute;
    return prepared;
  }) as typeof session.prepareQuery;
  return () => {
    session.prepareQuery = prepareQuery;
  };
}

/** The health checks a test asked while the server worked on something else, and whether each was answered. */
export interface HealthProbes {
  /** Each check's answer, in the order the checks were asked. */
  readonly answered: Promise<void>[];
  /** Stops asking. */
  stop(): void;
}

/**
 * Asks `GET /health` each time a statement whose SQL `matches` answers (`afterStatements`), and
 * calls `onAnswer` as each check is answered: how a test sees whether the event loop is free for
 * other requests while the server works on what the statement read.
 */
export function probeHealthAfterStatements(
  server: TestServer,
  matches: (sql: string) => boolean,
  onAnswer: () => void,
): HealthProbes {
  const answered: Promise<void>[] = [];
  const stop = afterStatements(server, matches, () => {
    answered.push(
      fetch(`${server.baseUrl}/api/v2/health`)
        .then((health) => health.text())
        .then(onAnswer),
    );
  });
  return { answered, stop };
}
