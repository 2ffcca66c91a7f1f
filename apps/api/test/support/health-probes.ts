import type { SQL } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import type { TestServer } from "./server.ts";

/**
 * Runs `then` each time a statement whose SQL `matches` answers on the server's store, before the
 * code that sent it reads the answer, until the returned function is called. It watches the
 * store's Drizzle database, which `Store.query` sends its statements through as well.
 */
export function afterStatements(
  server: TestServer,
  matches: (sql: string) => boolean,
  then: () => Promise<void> | void,
): () => void {
  const { db } = server.platform.store;
  const execute = db.execute.bind(db);
  const dialect = new PgDialect();
  db.execute = (async (statement: SQL) => {
    const result = await execute(statement);
    if (matches(dialect.sqlToQuery(statement).sql)) await then();
    return result;
  }) as typeof db.execute;
  return () => {
    db.execute = execute;
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
