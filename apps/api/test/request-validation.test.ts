import { type ErrorCode, errorTable } from "@verbatim/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Answer,
  docsPathOf,
  type ErrorBodyShape,
  expectErrorEnvelope,
  expectIssueAt,
  type RawRequest,
  send,
  verbatimValidator,
} from "./support/http.ts";
import {
  type DocumentOperation,
  describeErrors,
  isObject,
  type JsonObject,
  operationsOf,
  type Parameter,
  resolveSchema,
} from "./support/openapi.ts";
import { startServer, type TestServer } from "./support/server.ts";

// Every case below is derived from the generated document, so a new operation is covered
// as soon as it is in the contract, live or not: validation runs before any handler.
const validator = verbatimValidator();
const document = validator.document;
const operations = operationsOf(document);
const bodyOperations = operations.filter((operation) => operation.jsonBody !== undefined);
const parameterOperations = operations.filter((operation) =>
  operation.parameters.some((parameter) => parameter.in === "path" || parameter.in === "query"),
);

/** The part of the request an issue path starts with, as the server's issues name it. */
const issueRoots: Record<Parameter["in"], string> = {
  path: "params",
  query: "query",
  header: "headers",
  cookie: "cookies",
};

const oneMebibyte = 1024 * 1024;

/** The JSON content type, for requests that send raw text. */
const jsonType = { "content-type": "application/json" };

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

describe("not 400 for a valid request", () => {
  it("derives cases for every operation that takes a body or a parameter", () => {
    const ids = (list: DocumentOperation[]) => list.map((operation) => operation.operationId);
    expect(ids(bodyOperations)).toEqual(
      expect.arrayContaining([
        "fetchVideoTranscript",
        "fetchChannelVideos",
        "fetchPlaylistVideos",
        "searchVideos",
        "fetchTranscriptsBatch",
        "createMonitor",
        "updateMonitor",
      ]),
    );
    expect(ids(parameterOperations)).toEqual(
      expect.arrayContaining(["getTranscriptJob", "getUsage", "listMonitorEvents"]),
    );
  });

  for (const operation of bodyOperations) {
    it(`lets the valid example of ${operation.operationId} past validation`, async () => {
      const answer = await send(server, requestFor(operation, {}));
      expectPastValidation(answer);
    });
  }

  for (const operation of bodyOperations) {
    it(`does not refuse a ${operation.operationId} body of exactly 1 MiB for its size`, async () => {
      const raw = padded(JSON.stringify(validBody(operation)), oneMebibyte);
      const answer = await send(server, { ...requestFor(operation, {}), json: undefined, raw, headers: jsonType });
      expectPastValidation(answer);
    });
  }
});

describe("400 invalid_request for a body that is not JSON", () => {
  for (const operation of bodyOperations) {
    it(`rejects malformed JSON sent to ${operation.operationId}`, async () => {
      const raw = '{"video": "dQw4w9WgXcQ",';
      const answer = await send(server, { ...requestFor(operation, {}), json: undefined, raw, headers: jsonType });
      expectErrorEnvelope(answer, 400, "invalid_request");
      expectIssueAt(answer, "/body");
    });
  }

  for (const operation of bodyOperations) {
    it(`rejects a ${operation.operationId} body sent as text/plain`, async () => {
      const raw = JSON.stringify(validBody(operation));
      const answer = await send(server, {
        ...requestFor(operation, {}),
        json: undefined,
        raw,
        headers: { "content-type": "text/plain" },
      });
      expectErrorEnvelope(answer, 400, "invalid_request");
      expectIssueAt(answer, "/headers/content-type");
    });
  }

  for (const operation of bodyOperations) {
    it(`rejects a ${operation.operationId} request without a body`, async () => {
      const answer = await send(server, { ...requestFor(operation, {}), json: undefined });
      expectErrorEnvelope(answer, 400, "invalid_request");
    });
  }
});

describe("400 invalid_request for a body that breaks the schema", () => {
  const missing = bodyOperations.flatMap((operation) =>
    requiredFields(operation).map((field) => ({ operationId: operation.operationId, field, operation })),
  );
  for (const entry of missing) {
    it(`rejects a ${entry.operationId} body without its required ${entry.field}`, async () => {
      const { operation, field } = entry;
      const { [field]: _dropped, ...body } = validBody(operation);
      const answer = await send(server, requestFor(operation, { body }));
      expectErrorEnvelope(answer, 400, "invalid_request");
      expectIssueAt(answer, `/body/${field}`);
    });
  }

  const wrongTypes = bodyOperations.flatMap((operation) =>
    Object.entries(bodyProperties(operation)).flatMap(([field, schema]) => {
      const wrong = wrongTypeFor(schema);
      if (wrong === undefined) return [];
      return [{ operationId: operation.operationId, field, shown: JSON.stringify(wrong.value), wrong, operation }];
    }),
  );
  for (const entry of wrongTypes) {
    it(`rejects ${entry.field} sent as ${entry.shown} in a ${entry.operationId} body`, async () => {
      const { operation, field, wrong } = entry;
      const answer = await send(
        server,
        requestFor(operation, { body: { ...validBody(operation), [field]: wrong.value } }),
      );
      expectErrorEnvelope(answer, 400, "invalid_request");
      expectIssueAt(answer, `/body/${field}`);
    });
  }

  for (const operation of bodyOperations) {
    it(`rejects an unknown field in a ${operation.operationId} body`, async () => {
      const answer = await send(
        server,
        requestFor(operation, { body: { ...validBody(operation), unexpected_field: 1 } }),
      );
      expectErrorEnvelope(answer, 400, "invalid_request");
      expectIssueAt(answer, "/body/unexpected_field");
    });
  }

  for (const operation of bodyOperations) {
    it(`rejects a ${operation.operationId} body that is a JSON array`, async () => {
      const answer = await send(server, requestFor(operation, { body: [validBody(operation)] }));
      expectErrorEnvelope(answer, 400, "invalid_request");
      expectIssueAt(answer, "/body");
    });
  }
});

describe("400 invalid_request for a parameter that breaks the schema", () => {
  const cases = operations.flatMap((operation) =>
    operation.parameters.flatMap((parameter) =>
      invalidValuesOf(parameter).map(({ why, value }) => ({
        operationId: operation.operationId,
        place: parameter.in,
        name: parameter.name,
        why,
        operation,
        parameter,
        value,
      })),
    ),
  );
  it("derives cases for the job id, the usage dates and the event page size", () => {
    const named = cases.map((entry) => `${entry.operationId} ${entry.name}`);
    for (const expected of ["getTranscriptJob jobId", "getUsage from", "getUsage to", "listMonitorEvents limit"]) {
      expect(named).toContain(expected);
    }
  });

  for (const entry of cases) {
    it(`rejects the ${entry.place} parameter ${entry.name} of ${entry.operationId} when it ${entry.why}`, async () => {
      const { operation, parameter, value } = entry;
      const answer = await send(server, requestFor(operation, { parameter: { parameter, value } }));
      expectErrorEnvelope(answer, 400, "invalid_request");
      const name = parameter.in === "header" ? parameter.name.toLowerCase() : parameter.name;
      expectIssueAt(answer, `/${issueRoots[parameter.in]}/${name}`);
    });
  }

  for (const operation of parameterOperations) {
    it(`rejects an unknown query parameter on ${operation.operationId}`, async () => {
      const answer = await send(server, requestFor(operation, { query: "unexpected_param=1" }));
      expectErrorEnvelope(answer, 400, "invalid_request");
      expectIssueAt(answer, "/query/unexpected_param");
    });
  }

  const dates = operations.flatMap((operation) =>
    operation.parameters
      .filter((parameter) => parameter.schema && resolveSchema(document, parameter.schema).format === "date")
      .map((parameter) => ({ operationId: operation.operationId, name: parameter.name, operation, parameter })),
  );
  for (const entry of dates) {
    it(`rejects ${entry.name}=2026-02-30 on ${entry.operationId}, a day that does not exist`, async () => {
      const { operation, parameter } = entry;
      const answer = await send(server, requestFor(operation, { parameter: { parameter, value: "2026-02-30" } }));
      expectErrorEnvelope(answer, 400, "invalid_request");
      expectIssueAt(answer, `/query/${parameter.name}`);
    });
  }

  it("rejects a path parameter that is not valid percent-encoding without a 500", async () => {
    const answer = await send(server, { method: "GET", path: "/api/v2/transcripts/jobs/%E0%A4%A" });
    expectErrorEnvelope(answer, 400, "invalid_request");
  });
});

describe("413 invalid_request for a body over 1 MiB", () => {
  for (const operation of bodyOperations) {
    it(`refuses a ${operation.operationId} body one byte over 1 MiB`, async () => {
      const json = JSON.stringify(validBody(operation));
      const answer = await send(server, {
        ...requestFor(operation, {}),
        json: undefined,
        raw: padded(json, oneMebibyte + 1),
        headers: jsonType,
      });
      expectErrorEnvelope(answer, 413, "invalid_request");
      expectIssueAt(answer, "/body");
    });
  }
});

describe("404 not_found for a path or method the API does not have", () => {
  const unknownPaths = [
    "/api/v2/no-such-endpoint",
    "/api/v2/transcripts",
    "/api/v2",
    "/api/v3/transcripts/video",
    "/no-such-page",
    "/",
    "/docs/no-such-page",
  ];
  it.each(unknownPaths)("answers GET %s with the JSON envelope, never HTML", async (path) => {
    const answer = await send(server, { method: "GET", path, headers: { accept: "text/html,*/*;q=0.8" } });
    expectErrorEnvelope(answer, 404, "not_found");
    expect(answer.text).not.toMatch(/^\s*</);
  });

  it.each(unknownPaths)("answers a JSON POST to %s with the not_found envelope", async (path) => {
    const answer = await send(server, { method: "POST", path, json: { video: "dQw4w9WgXcQ" } });
    expectErrorEnvelope(answer, 404, "not_found");
  });

  const wrongMethods = Object.entries(document.paths).map(([path, item]) => {
    const method =
      ["delete", "put", "patch", "post", "get"].find((candidate) => item[candidate] === undefined) ?? "put";
    return { method: method.toUpperCase(), path, url: `/api/v2${fillPath(path)}` };
  });
  for (const entry of wrongMethods) {
    it(`answers ${entry.method} ${entry.path} with the not_found envelope`, async () => {
      const { method, url } = entry;
      const answer = await send(server, { method, path: url });
      expectErrorEnvelope(answer, 404, "not_found");
    });
  }
});

describe("GET /docs/errors/{code}: 200", () => {
  const produced: Array<{ what: string; code: ErrorCode; request: RawRequest }> = [
    {
      what: "a validation failure",
      code: "invalid_request",
      request: { method: "POST", path: "/api/v2/transcripts/video", json: {} },
    },
    { what: "an unknown path", code: "not_found", request: { method: "GET", path: "/api/v2/no-such-endpoint" } },
  ];
  for (const entry of produced) {
    it(`serves the page that error.docs of ${entry.what} links to`, async () => {
      const { code, request } = entry;
      const answer = await send(server, request);
      const docs = new URL((answer.body as ErrorBodyShape).error?.docs ?? "");
      expect(docs.origin, answer.text).toBe(server.baseUrl);
      expect(docsPathOf(answer)).toBe(`/docs/errors/${code}`);
      const page = await fetch(docs, { headers: { accept: "text/html" } });
      const html = await page.text();
      expect(page.status, html).toBe(200);
      expect(page.headers.get("content-type"), html).toMatch(/^text\/html/);
      expect(html).toContain(code);
    });
  }

  it("links error.docs to the configured public address", async () => {
    const configured = await startServer({
      deps: { config: { version: "0.0.0-test", publicUrl: "https://verbatim.example.com" } },
    });
    try {
      const answer = await send(configured, { method: "GET", path: "/api/v2/no-such-endpoint" });
      expectErrorEnvelope(answer, 404, "not_found");
      expect((answer.body as ErrorBodyShape).error?.docs).toBe("https://verbatim.example.com/docs/errors/not_found");
    } finally {
      await configured.close();
    }
  });

  const entries = Object.entries(errorTable).map(([code, entry]) => ({
    code,
    number: entry.number,
    status: entry.status,
  }));
  for (const entry of entries) {
    it(`describes ${entry.code} as JSON, by code and by number ${entry.number}`, async () => {
      const { code, number, status } = entry;
      for (const key of [code, String(number)]) {
        const answer = await send(server, {
          method: "GET",
          path: `/docs/errors/${key}`,
          headers: { accept: "application/json" },
        });
        expect(answer.status, answer.text).toBe(200);
        expect(answer.body, answer.text).toMatchObject({ code, number, status });
      }
    });
  }

  it("serves HTML when the client states no preference", async () => {
    const page = await fetch(`${server.baseUrl}/docs/errors/invalid_request`, { headers: { accept: "*/*" } });
    const text = await page.text();
    expect(page.status, text).toBe(200);
    expect(page.headers.get("content-type"), text).toMatch(/^text\/html/);
  });
});

describe("GET /docs/errors/{code}: 404", () => {
  it.each(["no_such_error", "9999"])("answers %s with the not_found envelope", async (key) => {
    const answer = await send(server, {
      method: "GET",
      path: `/docs/errors/${key}`,
      headers: { accept: "application/json" },
    });
    expectErrorEnvelope(answer, 404, "not_found");
  });

  it("answers an unknown code with the JSON envelope even when a browser asks for HTML", async () => {
    const answer = await send(server, {
      method: "GET",
      path: "/docs/errors/no_such_error",
      headers: { accept: "text/html" },
    });
    expectErrorEnvelope(answer, 404, "not_found");
  });
});

describe("never 500 for a request the server cannot serve", () => {
  it("answers an error page asked for as image/png without a 500", async () => {
    const answer = await send(server, {
      method: "GET",
      path: "/docs/errors/invalid_request",
      headers: { accept: "image/png" },
    });
    expect(answer.status, answer.text).toBeLessThan(500);
  });
});

/** What a test changes in an operation's valid request. */
interface Changes {
  body?: unknown;
  query?: string;
  parameter?: { parameter: Parameter; value: string };
}

/** A request of `operation` that passes validation, except for `changes`. */
function requestFor(operation: DocumentOperation, changes: Changes): RawRequest {
  const changed = changes.parameter;
  const values: Record<string, string> = {};
  if (changed?.parameter.in === "path") values[changed.parameter.name] = changed.value;
  const query = new URLSearchParams(changes.query);
  if (changed?.parameter.in === "query") query.set(changed.parameter.name, changed.value);
  const headers: Record<string, string> = {};
  if (changed?.parameter.in === "header") headers[changed.parameter.name] = changed.value;
  // URLSearchParams writes a space as `+`, which not every query parser reads as a space; `%20` every one does.
  const search = query.size > 0 ? `?${query.toString().replaceAll("+", "%20")}` : "";
  const body = "body" in changes ? changes.body : operation.jsonBody ? validBody(operation) : undefined;
  return {
    method: operation.method,
    path: `/api/v2${fillPath(operation.path, values)}${search}`,
    ...(body === undefined ? {} : { json: body }),
    headers,
  };
}

/** The document's path with every `{name}` replaced by a valid value or the given one. */
function fillPath(path: string, values: Record<string, string> = {}): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(values[name] ?? validPathValue(name)));
}

/** A value that satisfies the path parameter's schema: its first example, or the shortest string allowed. */
function validPathValue(name: string): string {
  const parameter = operations
    .flatMap((operation) => operation.parameters)
    .find((candidate) => candidate.in === "path" && candidate.name === name);
  const example = Object.values(parameter?.examples ?? {})[0]?.value;
  if (typeof example === "string") return example;
  const minLength = parameter?.schema?.minLength;
  return "x".repeat(typeof minLength === "number" ? Math.max(minLength, 1) : 1);
}

/** The first request example of the operation that its own schema accepts (some examples show failures). */
function validBody(operation: DocumentOperation): JsonObject {
  const pointer = operation.jsonBody?.pointer ?? "";
  const found = operation.bodyExamples.find(
    (example) => isObject(example.value) && validator.errors(pointer, example.value).length === 0,
  );
  if (!found || !isObject(found.value)) {
    const why = operation.bodyExamples.map(
      (example) => `${example.name}: ${describeErrors(validator.errors(pointer, example.value))}`,
    );
    throw new Error(
      `${operation.operationId} has no valid request example to start from; add one in spec/\n${why.join("\n")}`,
    );
  }
  return found.value;
}

function bodySchema(operation: DocumentOperation): JsonObject {
  return resolveSchema(document, operation.jsonBody?.schema ?? {});
}

function requiredFields(operation: DocumentOperation): string[] {
  const { required } = bodySchema(operation);
  return Array.isArray(required) ? required.filter((field): field is string => typeof field === "string") : [];
}

function bodyProperties(operation: DocumentOperation): Record<string, JsonObject> {
  const { properties } = bodySchema(operation);
  return isObject(properties) ? (properties as Record<string, JsonObject>) : {};
}

type JsonType = "null" | "boolean" | "integer" | "number" | "string" | "array" | "object";

function jsonTypeOf(value: unknown): JsonType {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value as JsonType;
}

/** The JSON types a schema admits, through `$ref`, `enum`, `const` and the combinators. */
function admittedTypes(schema: JsonObject): Set<JsonType> {
  const resolved = resolveSchema(document, schema);
  const types = new Set<JsonType>();
  const declared = resolved.type;
  for (const type of Array.isArray(declared) ? declared : [declared])
    if (typeof type === "string") types.add(type as JsonType);
  if (Array.isArray(resolved.enum)) for (const value of resolved.enum) types.add(jsonTypeOf(value));
  if ("const" in resolved) types.add(jsonTypeOf(resolved.const));
  for (const combinator of ["allOf", "anyOf", "oneOf"]) {
    const branches = resolved[combinator];
    if (Array.isArray(branches))
      for (const branch of branches) for (const type of admittedTypes(branch)) types.add(type);
  }
  if (types.has("integer")) types.add("number");
  return types;
}

/** A value of a JSON type the field does not admit, or nothing when the schema admits any type. */
function wrongTypeFor(schema: JsonObject): { value: unknown } | undefined {
  const types = admittedTypes(schema);
  if (types.size === 0) return undefined;
  const candidates: unknown[] = [12345, "not-a-number", true, { unexpected: true }, ["unexpected"]];
  const value = candidates.find(
    (candidate) => !types.has(jsonTypeOf(candidate)) && !(jsonTypeOf(candidate) === "integer" && types.has("number")),
  );
  return value === undefined ? undefined : { value };
}

/** Values that break a parameter's schema, each with the rule it breaks. */
function invalidValuesOf(parameter: Parameter): Array<{ why: string; value: string }> {
  if (!parameter.schema) return [];
  const schema = resolveSchema(document, parameter.schema);
  const types = admittedTypes(schema);
  const values: Array<{ why: string; value: string }> = [];
  if (types.has("number")) {
    values.push({ why: "is not a number", value: "abc" });
    if (typeof schema.minimum === "number")
      values.push({ why: `is below ${schema.minimum}`, value: String(schema.minimum - 1) });
    if (typeof schema.maximum === "number")
      values.push({ why: `is above ${schema.maximum}`, value: String(schema.maximum + 1) });
    if (types.has("integer") && !types.has("string")) {
      values.push({ why: "is not an integer", value: "1.5" });
      values.push(...looseIntegersOf(schema));
    }
  }
  if (types.has("string")) {
    if (schema.format === "date") values.push({ why: "is not a date", value: "yesterday" });
    if (Array.isArray(schema.enum)) values.push({ why: "is none of its values", value: "not-one-of-them" });
    if (typeof schema.maxLength === "number") {
      values.push({ why: `is longer than ${schema.maxLength} characters`, value: "x".repeat(schema.maxLength + 1) });
    }
    // An empty path segment is another route, and an empty header is no header: only a query can be empty.
    if (parameter.in === "query" && typeof schema.minLength === "number" && schema.minLength > 0) {
      values.push({ why: "is empty", value: "" });
    }
  }
  return values;
}

/**
 * An integer the schema admits, written as `Number` reads it but not as a decimal integer: the
 * validator coerced each of these query strings to the number before the server refused them.
 */
function looseIntegersOf(schema: JsonObject): Array<{ why: string; value: string }> {
  const admitted = typeof schema.minimum === "number" ? schema.minimum : 1;
  return [
    { why: `is written ${admitted}e0`, value: `${admitted}e0` },
    { why: "is written in hexadecimal", value: `0x${admitted.toString(16)}` },
    { why: "starts with a space", value: ` ${admitted}` },
    { why: "starts with a plus sign", value: `+${admitted}` },
    { why: "has a fraction of zero", value: `${admitted}.0` },
    { why: "is Infinity", value: "Infinity" },
  ];
}

/** `json` followed by spaces (valid JSON whitespace) up to exactly `bytes` bytes. */
function padded(json: string, bytes: number): string {
  return json + " ".repeat(bytes - Buffer.byteLength(json));
}

/** The request reached its handler: whatever it answers, it is not a validation failure nor a crash. */
function expectPastValidation(answer: Answer): void {
  expect(answer.status, answer.text).not.toBe(400);
  expect(answer.status, answer.text).not.toBe(413);
  expect(answer.status, answer.text).not.toBe(500);
  expect((answer.body as ErrorBodyShape).error?.code, answer.text).not.toBe("invalid_request");
}
