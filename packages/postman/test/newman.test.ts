import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { liveRoutes, v2Operations } from "@verbatim/api";
import newman, { type NewmanRunSummary } from "newman";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../../../apps/api/test/support/server.ts";

/** The parts of a Postman collection these tests read: a request's id is its operationId. */
interface CollectionItem {
  id?: string;
  name: string;
  item?: CollectionItem[];
}

interface Collection {
  item: CollectionItem[];
}

const collection = JSON.parse(
  readFileSync(new URL("../generated/verbatim.v2.postman_collection.json", import.meta.url), "utf8"),
) as Collection;

function requestsOf(items: CollectionItem[]): CollectionItem[] {
  return items.flatMap((item) => (item.item ? requestsOf(item.item) : [item]));
}

/** The items that lead to a request of one of the operations, without folders left empty. */
function keepOperations(items: CollectionItem[], operationIds: ReadonlySet<string>): CollectionItem[] {
  return items.flatMap((item) => {
    if (!item.item) return item.id !== undefined && operationIds.has(item.id) ? [item] : [];
    const kept = keepOperations(item.item, operationIds);
    return kept.length > 0 ? [{ ...item, item: kept }] : [];
  });
}

function runCollection(run: Collection, endpoint: string, bearerToken: string): Promise<NewmanRunSummary> {
  return new Promise((resolve, reject) => {
    newman.run(
      {
        collection: run,
        envVar: [
          { key: "endpoint", value: endpoint },
          { key: "bearerToken", value: bearerToken },
        ],
      },
      (error, summary) => (error ? reject(error) : resolve(summary)),
    );
  });
}

/** One line per failed assertion or script error: the request, the test and why it failed. */
function failureLines(summary: NewmanRunSummary): string[] {
  return summary.run.failures.map(
    (failure) => `${failure.source?.name ?? failure.at}: ${failure.error.test ?? failure.at}: ${failure.error.message}`,
  );
}

let server: TestServer;
let liveCollection: Collection;
let liveOperationIds: string[];
beforeAll(async () => {
  server = await startServer();
  liveOperationIds = liveRoutes(server.deps).map((route) => route.operationId);
  liveCollection = { ...collection, item: keepOperations(collection.item, new Set(liveOperationIds)) };
});
afterAll(() => server.close());

describe("the generated collection", () => {
  it("has one request per operation of the contract, with the operationId as its id", () => {
    const ids = requestsOf(collection.item).map((item) => item.id);
    expect(ids.toSorted()).toEqual(v2Operations.map((operation) => operation.operationId).toSorted());
  });
});

describe("newman against the server", () => {
  it("runs the request of every live operation with no failed assertion", async () => {
    expect(requestsOf(liveCollection.item).map((item) => item.id)).toEqual(expect.arrayContaining(liveOperationIds));

    const summary = await runCollection(liveCollection, server.baseUrl, server.key.key);

    expect(failureLines(summary)).toEqual([]);
    expect(summary.run.stats.requests.total).toBe(liveOperationIds.length);
    expect(summary.run.stats.assertions.total).toBeGreaterThan(0);
  });
});

describe("newman against a server that breaks the contract", () => {
  const requestId = "req_01JD7XH0V6Q8M2F4A9C3K5T7W1";
  const success = { ok: true, request_id: requestId, data: { kind: "health" }, usage: { credits_spent: 0 } };
  const error = {
    ok: false,
    request_id: requestId,
    error: { code: "internal_error", number: 5000, message: "Broken.", docs: "http://127.0.0.1/docs/errors" },
  };

  it.each([
    {
      answer: "a status that is not a success",
      status: 500,
      headers: { "X-Request-Id": requestId },
      body: error,
      failingTest: "the status is a success status of the operation",
    },
    {
      answer: "a body that is not the envelope",
      status: 200,
      headers: { "X-Request-Id": requestId },
      body: { status: "ok" },
      failingTest: "the body is the JSON envelope with ok and a req_ request_id",
    },
    {
      answer: "a mismatched X-Request-Id",
      status: 200,
      headers: { "X-Request-Id": "req_another" },
      body: success,
      failingTest: "the X-Request-Id header equals request_id",
    },
    {
      answer: "a success without usage",
      status: 200,
      headers: { "X-Request-Id": requestId },
      body: { ...success, usage: undefined },
      failingTest: "a success envelope has data and usage objects",
    },
    {
      answer: "an error without error.number",
      status: 200,
      headers: { "X-Request-Id": requestId },
      body: { ...error, error: { ...error.error, number: undefined } },
      failingTest: "an error envelope has error.code, error.number, error.message and error.docs",
    },
  ])("fails when the server answers $answer", async ({ status, headers, body, failingTest }) => {
    const broken = createServer((_request, response) => {
      response.writeHead(status, { "Content-Type": "application/json", ...headers }).end(JSON.stringify(body));
    });
    await new Promise<void>((resolve) => broken.listen(0, "127.0.0.1", resolve));
    const { port } = broken.address() as AddressInfo;

    try {
      const summary = await runCollection(liveCollection, `http://127.0.0.1:${port}`, server.key.key);
      expect(summary.run.failures.map((failure) => failure.error.test)).toContain(failingTest);
    } finally {
      await new Promise((resolve) => broken.close(resolve));
    }
  });
});
