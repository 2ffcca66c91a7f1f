import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import newman, { type NewmanRunSummary } from "newman";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { v1Operations, v2Operations } from "../../src/http/operations.ts";
import { liveRoutes } from "../../src/http/routes/index.ts";
import { startServer, type TestServer } from "../support/server.ts";

const require = createRequire(import.meta.url);

/** The parts of a Postman collection these tests read: a request's id is its operationId. */
interface CollectionItem {
  id?: string;
  name: string;
  item?: CollectionItem[];
}

interface Collection {
  item: CollectionItem[];
}

function readCollection(version: "v1" | "v2"): Collection {
  return JSON.parse(
    readFileSync(require.resolve(`@verbatim/postman/verbatim.${version}.postman_collection.json`), "utf8"),
  ) as Collection;
}

const collections = {
  v1: { collection: readCollection("v1"), operations: v1Operations },
  v2: { collection: readCollection("v2"), operations: v2Operations },
};

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
let liveOperationIds: string[];
let liveCollection: Collection;
beforeAll(async () => {
  server = await startServer();
  // The collection reads its example library entry (`youtube:jNQXAC9IVRw`): the account delivered it before.
  await server.platform.library.record(server.account.id, {
    kind: "transcript",
    video_id: "jNQXAC9IVRw",
    url: "https://www.youtube.com/watch?v=jNQXAC9IVRw",
    platform: "youtube",
    title: "Me at the zoo",
    channel: "jawed",
    duration: 19,
    language: "en",
    source: "captions",
    caption_kind: "manual",
    thumbnail_url: null,
    speakers: null,
    speech_engine: null,
    text: "All right, so here we are in front of the elephants",
    segments: [{ start: 1.2, duration: 2.16, text: "All right, so here we are in front of the elephants" }],
  });
  liveOperationIds = liveRoutes(server.deps).map((route) => route.operationId);
  liveCollection = liveCollectionOf("v2");
});
afterAll(() => server.close());

/** The version's collection without the operations this test server does not serve. */
function liveCollectionOf(version: keyof typeof collections): Collection {
  const { collection: whole, operations } = collections[version];
  const live = new Set(
    operations
      .map((operation) => operation.operationId)
      .filter((operationId) => liveOperationIds.includes(operationId)),
  );
  return { ...whole, item: keepOperations(whole.item, live) };
}

describe.each(["v1", "v2"] as const)("the generated %s collection", (version) => {
  it("has one request per operation of the contract, with the operationId as its id", () => {
    const ids = requestsOf(collections[version].collection.item).map((item) => item.id);
    expect(ids.toSorted()).toEqual(
      collections[version].operations.map((operation) => operation.operationId).toSorted(),
    );
  });

  it("runs the request of every live operation against the server with no failed assertion", async () => {
    const run = liveCollectionOf(version);
    const runIds = requestsOf(run.item).map((item) => item.id);
    expect(runIds.length).toBeGreaterThan(0);

    const summary = await runCollection(run, server.baseUrl, server.key.key);

    expect(failureLines(summary)).toEqual([]);
    expect(summary.run.stats.requests.total).toBe(runIds.length);
    expect(summary.run.stats.assertions.total).toBeGreaterThan(0);
  });
});

describe("newman with the v1 collection against a server that is not v1", () => {
  it("fails when a response does not say v1 is deprecated", async () => {
    const notV1 = createServer((_request, response) => {
      response.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify({ status: "ok" }));
    });
    await new Promise<void>((resolve) => notV1.listen(0, "127.0.0.1", resolve));
    const { port } = notV1.address() as AddressInfo;
    try {
      const summary = await runCollection(liveCollectionOf("v1"), `http://127.0.0.1:${port}`, server.key.key);
      expect(summary.run.failures.map((failure) => failure.error.test)).toContain(
        "the response names v2 as its successor and v1 as deprecated",
      );
    } finally {
      await new Promise((resolve) => notV1.close(resolve));
    }
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
