import { type LoopbackServer, listenOnLoopback } from "@verbatim/testkit/listen";
import { DrizzleQueryError } from "drizzle-orm";
import express from "express";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorHandler } from "../src/http/error-handler.ts";
import { assignRequestId } from "../src/http/request-id.ts";
import { isStoreUnreachable } from "../src/store/database.ts";
import { startServer, type TestServer } from "./support/server.ts";

const insert = 'insert into "list_positions" ("id") values ($1)';
const cut = () => new DrizzleQueryError(insert, ["a"], new Error("Connection terminated unexpectedly"));
const reset = () =>
  new DrizzleQueryError(insert, ["a"], Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" }));
const duplicate = () => {
  const cause = new pg.DatabaseError("duplicate key value violates unique constraint", 0, "error");
  cause.code = "23505";
  return new DrizzleQueryError(insert, ["a"], cause);
};

describe("which errors mean the store could not be reached", () => {
  it("counts a cut connection, a reset socket and a server shutting down, not a failed statement or a bug", () => {
    const shuttingDown = new pg.DatabaseError("terminating connection due to administrator command", 0, "error");
    shuttingDown.code = "57P01";
    expect(
      [cut(), reset(), new Error("Connection terminated unexpectedly"), shuttingDown].map(isStoreUnreachable),
    ).toEqual([true, true, true, true]);
    const bug = new DrizzleQueryError(insert, ["a"], new TypeError("Do not know how to serialize a BigInt"));
    expect([duplicate(), bug, new Error("read ECONNRESET")].map(isStoreUnreachable)).toEqual([false, false, false]);
  });
});

// A route that fails as a request does when the database goes away after admission.
describe("an admitted request that loses the store answers 503 overloaded, not 500", () => {
  let platformServer: TestServer;
  let server: LoopbackServer;

  beforeAll(async () => {
    platformServer = await startServer();
    const app = express();
    app.use(assignRequestId());
    app.get("/cut", () => Promise.reject(cut()));
    app.get("/duplicate", () => Promise.reject(duplicate()));
    app.use(errorHandler(platformServer.deps));
    server = await listenOnLoopback(app);
  });
  afterAll(async () => {
    await server?.close();
    await platformServer?.close();
  });

  it("answers overloaded with Retry-After for a lost connection, and internal_error for a failed statement", async () => {
    const lost = await fetch(`${server.baseUrl}/cut`);
    const lostBody = await lost.text();
    expect(lost.status, lostBody).toBe(503);
    expect(JSON.parse(lostBody).error.code).toBe("overloaded");
    expect(lost.headers.get("retry-after")).toBe("5");
    const failed = await fetch(`${server.baseUrl}/duplicate`);
    expect(failed.status, await failed.text()).toBe(500);
  });
});
