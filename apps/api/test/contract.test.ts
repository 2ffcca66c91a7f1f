import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { v2Operations } from "../src/http/operations.ts";
import { liveRoutes, pendingOperations } from "../src/http/routes/index.ts";
import { startServer, type TestServer } from "./support/server.ts";

let server: TestServer;
let live: string[];
const pending: string[] = Object.keys(pendingOperations);
const documented: string[] = v2Operations.map((operation) => operation.operationId);

beforeAll(async () => {
  server = await startServer();
  live = liveRoutes(server.deps).map((route) => route.operationId);
});
afterAll(() => server.close());

describe("the v2 contract and the server's routes", () => {
  it("gives every operation of the OpenAPI document a live route or a pending entry", () => {
    const unserved = documented.filter((id) => !live.includes(id) && !pending.includes(id));
    expect(unserved).toEqual([]);
  });

  it("never lists an operation as both live and pending", () => {
    expect(live.filter((id) => pending.includes(id))).toEqual([]);
  });

  it("serves and lists only operations that the document defines", () => {
    expect([...live, ...pending].filter((id) => !documented.includes(id))).toEqual([]);
  });

  it("has one route per operation id", () => {
    expect(new Set(live).size).toBe(live.length);
    expect(new Set(documented).size).toBe(documented.length);
  });
});
