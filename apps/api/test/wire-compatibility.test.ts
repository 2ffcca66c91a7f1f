import { readFileSync } from "node:fs";
import { type ErrorCode, errorTable, type OperationId } from "@verbatim/contract";
import { fromFixture } from "@verbatim/testkit/fake-youtube";
import { registerRecordedLists } from "@verbatim/testkit/youtube-lists";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { liveRoutes } from "../src/http/routes/index.ts";
import { type ErrorBodyShape, type RawRequest, send, verbatimValidator } from "./support/http.ts";
import {
  boundaryValues,
  type DocumentOperation,
  DocumentValidator,
  describeErrors,
  follow,
  isObject,
  type JsonObject,
  operationsOf,
  readJsonDocument,
  resolveSchema,
  responseSchemaPointer,
  shownValue,
} from "./support/openapi.ts";
import type { TestServer } from "./support/server.ts";
import { startYoutubeServer, type YoutubeTestServer } from "./support/youtube-server.ts";

// docs/decisions.md, rule 1: every request the hosted service's published
// contract accepts must be accepted by Verbatim, and every Verbatim response must validate against
// that contract's (open) response schemas. The fixtures are copies of the anchor (see SOURCE.md).
const fixtures = new URL("./fixtures/transcriptfetch/", import.meta.url);
const anchor = new DocumentValidator(
  readJsonDocument(new URL("transcriptfetch-api-v2-openapi.json", fixtures)),
  "transcriptfetch-openapi-v2",
  { discriminator: true },
);
const problemTypes = (
  parse(readFileSync(new URL("transcriptfetch-problem-types.yml", fixtures), "utf8")) as {
    problem_types: Array<{ code: string; number: number; status: number }>;
  }
).problem_types;
const verbatim = verbatimValidator();

/** The anchor's paths carry the version; Verbatim's are relative to its server URL, which ends in it. */
const versionPrefix = "/api/v2";
const anchorOperations = operationsOf(anchor.document);
const verbatimOperations = new Map(
  operationsOf(verbatim.document).map((operation) => [operation.operationId, operation]),
);

/**
 * How to call each live operation for a response to check against the anchor. When an
 * operation of the anchor goes live, add its requests here; a test fails until it is.
 */
/** A video the fake YouTube answers from the recordings of youtube-transcript-api. */
const recordedVideo = "GJLlxj_dtq8";

const liveProbes: Partial<Record<OperationId, Array<{ what: string; request: RawRequest }>>> = {
  healthCheck: [
    { what: "a liveness probe without a key", request: { method: "GET", path: "/api/v2/health", authorized: false } },
  ],
  me: [{ what: "a valid key", request: { method: "GET", path: "/api/v2/me" } }],
  fetchVideoTranscript: [
    {
      what: "a recorded YouTube video, with segments",
      request: { method: "POST", path: "/api/v2/transcripts/video", json: { video: recordedVideo } },
    },
    {
      what: "a recorded YouTube video, as text",
      request: { method: "POST", path: "/api/v2/transcripts/video", json: { video: recordedVideo, timestamps: false } },
    },
  ],
  fetchTranscriptsBatch: [
    {
      what: "an ok row and an error row (a video the fake does not serve)",
      request: {
        method: "POST",
        path: "/api/v2/transcripts/batch",
        json: { video_ids: [recordedVideo, "https://youtu.be/aBcDeFgHiJk"], mode: "captions" },
      },
    },
    {
      what: "the legacy key videoIds",
      request: { method: "POST", path: "/api/v2/transcripts/batch", json: { videoIds: [recordedVideo] } },
    },
  ],
  // The recorded lists of @verbatim/testkit/youtube-lists, registered on the fake below.
  fetchChannelVideos: [
    {
      what: "a recorded channel's videos tab",
      request: {
        method: "POST",
        path: "/api/v2/transcripts/channel",
        json: { channel: "https://www.youtube.com/user/creativecommons", limit: 7 },
      },
    },
  ],
  fetchPlaylistVideos: [
    {
      what: "a recorded playlist",
      request: {
        method: "POST",
        path: "/api/v2/transcripts/playlist",
        json: { playlist: "https://www.youtube.com/playlist?list=PLoumn5BIsUDeGF1vy5Nylf_RJKn5aL_nr", limit: 7 },
      },
    },
  ],
  searchVideos: [
    {
      what: "a recorded video search",
      request: { method: "POST", path: "/api/v2/transcripts/search", json: { query: "test", limit: 7 } },
    },
  ],
};

/** Error responses of today's server, each checked against the anchor's `ErrorEnvelope`. */
const errorProbes: Array<{ what: string; status: number; code: ErrorCode; request: RawRequest }> = [
  {
    what: "a body without its required field",
    status: 400,
    code: "invalid_request",
    request: { method: "POST", path: "/api/v2/transcripts/video", json: {} },
  },
  {
    what: "a query parameter that is not a date",
    status: 400,
    code: "invalid_request",
    request: { method: "GET", path: "/api/v2/usage?from=yesterday" },
  },
  {
    what: "malformed JSON",
    status: 400,
    code: "invalid_request",
    request: {
      method: "POST",
      path: "/api/v2/transcripts/video",
      raw: "{",
      headers: { "content-type": "application/json" },
    },
  },
  {
    what: "a request without a key",
    status: 401,
    code: "unauthorized",
    request: { method: "GET", path: "/api/v2/me", authorized: false },
  },
  {
    what: "an unknown path",
    status: 404,
    code: "not_found",
    request: { method: "GET", path: "/api/v2/no-such-endpoint" },
  },
  {
    what: "an operation that is not live yet",
    status: 404,
    code: "not_found",
    request: { method: "GET", path: "/api/v2/monitors" },
  },
  {
    what: "a list cursor that was not issued by the server",
    status: 400,
    code: "invalid_cursor",
    request: { method: "POST", path: "/api/v2/transcripts/playlist", json: { playlist: "PLx", cursor: "v1.expired" } },
  },
  {
    what: "a search of another platform",
    status: 422,
    code: "unsupported_platform",
    request: { method: "POST", path: "/api/v2/transcripts/search", json: { query: "zoo", platform: "tiktok" } },
  },
  {
    what: "a video the upstream refuses",
    status: 503,
    code: "upstream_error",
    request: { method: "POST", path: "/api/v2/transcripts/video", json: { video: "dQw4w9WgXcQ" } },
  },
  {
    what: "a body over 1 MiB",
    status: 413,
    code: "invalid_request",
    request: { method: "POST", path: "/api/v2/transcripts/video", json: { video: "x".repeat(1024 * 1024) } },
  },
];

let youtube: YoutubeTestServer;
let server: TestServer;
let live: ReadonlySet<string>;
beforeAll(async () => {
  youtube = await startYoutubeServer();
  youtube.fake
    .player(recordedVideo, fromFixture("youtube-transcript-api/youtube.innertube.json.static"))
    .timedtext({ v: recordedVideo, lang: "en" }, fromFixture("authored/GJLlxj_dtq8.en.srv3.xml"));
  registerRecordedLists(youtube.fake);
  server = youtube.server;
  live = new Set(liveRoutes(server.deps).map((route) => route.operationId));
});
afterAll(() => youtube.close());

describe("the anchor's operations in Verbatim's contract", () => {
  it("lists the eight operations SOURCE.md names", () => {
    expect(anchorOperations.map((operation) => operation.operationId).sort()).toEqual(
      [
        "fetchChannelVideos",
        "fetchPlaylistVideos",
        "fetchTranscriptsBatch",
        "fetchVideoTranscript",
        "getTranscriptJob",
        "healthCheck",
        "me",
        "searchVideos",
      ].sort(),
    );
  });

  for (const operation of anchorOperations) {
    it(`has ${operation.operationId} at the same method and path`, () => {
      const ours = verbatimOperations.get(operation.operationId);
      expect(ours, `Verbatim's document has no ${operation.operationId}`).toBeDefined();
      expect(`${ours?.method.toUpperCase()} ${versionPrefix}${ours?.path}`).toBe(
        `${operation.method.toUpperCase()} ${operation.path}`,
      );
      expect(ours?.jsonBody === undefined, "one of the two takes a JSON body, the other not").toBe(
        operation.jsonBody === undefined,
      );
    });
  }

  const examples = anchorOperations.flatMap((operation) =>
    operation.bodyExamples.map((example) => ({ operation, ...example })),
  );
  it("has request examples to replay", () => {
    expect(examples.length).toBeGreaterThan(0);
  });

  for (const { operation, name, value } of examples) {
    it(`accepts the anchor's ${operation.operationId} example "${name}" in its own schema`, () => {
      const anchorErrors = anchor.errors(operation.jsonBody?.pointer ?? "", value);
      expect(anchorErrors, `the anchor refuses its own example: ${describeErrors(anchorErrors)}`).toEqual([]);
      const errors = verbatim.errors(verbatimBodyPointer(operation.operationId), value);
      expect(errors, `${describeErrors(errors)}\n${JSON.stringify(value)}`).toEqual([]);
    });
  }
});

describe("not 400 for the anchor's request examples", () => {
  const examples = anchorOperations.flatMap((operation) =>
    operation.bodyExamples.map((example) => ({ operation, ...example })),
  );
  for (const { operation, name, value } of examples) {
    it(`lets the anchor's ${operation.operationId} example "${name}" past validation`, async () => {
      const answer = await send(server, { method: operation.method, path: operation.path, json: value });
      expect(answer.status, answer.text).not.toBe(400);
      expect(answer.status, answer.text).not.toBe(413);
      expect(answer.status, answer.text).not.toBe(500);
      expect((answer.body as ErrorBodyShape).error?.code, answer.text).not.toBe("invalid_request");
    });
  }
});

describe("Verbatim's request schemas accept every boundary value the anchor's accept", () => {
  const cases = anchorOperations.flatMap((operation) => {
    const base = operation.bodyExamples[0]?.value;
    if (!operation.jsonBody || !isObject(base)) return [];
    const properties = resolveSchema(anchor.document, operation.jsonBody.schema).properties;
    if (!isObject(properties)) return [];
    return Object.entries(properties).flatMap(([field, schema]) =>
      boundaryValues(anchor.document, schema as JsonObject).map((value) => ({
        title: `${operation.operationId} accepts ${field} as ${shownValue(value)}, as the anchor does`,
        operation,
        body: { ...base, [field]: value },
      })),
    );
  });

  for (const { title, operation, body } of cases) {
    it(title, () => {
      const anchorErrors = anchor.errors(operation.jsonBody?.pointer ?? "", body);
      expect(anchorErrors, `not a value the anchor accepts: ${describeErrors(anchorErrors)}`).toEqual([]);
      const errors = verbatim.errors(verbatimBodyPointer(operation.operationId), body);
      expect(errors, describeErrors(errors)).toEqual([]);
    });
  }
});

describe("2xx of live operations, valid against the anchor's response schemas", () => {
  it("has a probe for every live operation the anchor defines, and only for live ones", () => {
    const anchored = anchorOperations.map((operation) => operation.operationId).filter((id) => live.has(id));
    expect(Object.keys(liveProbes).sort()).toEqual(anchored.sort());
  });

  for (const [operationId, probes] of Object.entries(liveProbes)) {
    for (const { what, request } of probes ?? []) {
      it(`answers ${operationId} for ${what} in the anchor's shape`, async () => {
        const answer = await send(server, request);
        expect(answer.status, answer.text).toBeGreaterThanOrEqual(200);
        expect(answer.status, answer.text).toBeLessThan(300);
        const operation = anchorOperations.find((candidate) => candidate.operationId === operationId);
        expect(answer.headers.get("x-request-id"), answer.text).toBe(
          (answer.body as { request_id?: string }).request_id,
        );
        const pointer = anchorResponsePointer(operation, answer.status);
        const errors = anchor.errors(pointer, answer.body);
        expect(errors, `${describeErrors(errors)}\n${answer.text}`).toEqual([]);
      });
    }
  }
});

describe("errors of the server, valid against the anchor's ErrorEnvelope", () => {
  for (const { what, status, code, request } of errorProbes) {
    it(`answers ${what} with ${status} ${code} in the anchor's shape`, async () => {
      const answer = await send(server, request);
      expect(answer.status, answer.text).toBe(status);
      expect((answer.body as ErrorBodyShape).error?.code, answer.text).toBe(code);
      const errors = anchor.errors("/components/schemas/ErrorEnvelope", answer.body);
      expect(errors, `${describeErrors(errors)}\n${answer.text}`).toEqual([]);
    });
  }
});

describe("the error table, against the anchor's", () => {
  const anchorCodes = enumAt(["components", "schemas", "ErrorBlock", "properties", "code", "enum"]);
  const anchorNumbers = enumAt(["components", "schemas", "ErrorBlock", "properties", "number", "enum"]);
  const ours = Object.keys(errorTable) as ErrorCode[];

  it("reads the same codes from the anchor's catalogue and from its ErrorBlock", () => {
    expect(problemTypes.map((type) => type.code).sort()).toEqual([...anchorCodes].sort());
    expect(problemTypes.map((type) => type.number).sort()).toEqual([...anchorNumbers].sort());
  });

  for (const code of ours.filter((candidate) => anchorCodes.includes(candidate))) {
    it(`gives ${code} the anchor's number and status`, () => {
      const theirs = problemTypes.find((type) => type.code === code);
      expect({ number: errorTable[code].number, status: errorTable[code].status }).toEqual({
        number: theirs?.number,
        status: theirs?.status,
      });
    });
  }

  it("adds only overloaded and translation_unavailable, under numbers the anchor does not use", () => {
    const added = ours.filter((code) => !anchorCodes.includes(code));
    expect(added.sort()).toEqual(["overloaded", "translation_unavailable"]);
    for (const code of added) expect(anchorNumbers).not.toContain(errorTable[code].number);
  });

  it("drops none of the anchor's codes", () => {
    expect(anchorCodes.filter((code) => !(code in errorTable))).toEqual([]);
  });
});

/** The pointer of Verbatim's JSON request body schema for an operation of the anchor. */
function verbatimBodyPointer(operationId: string): string {
  const pointer = verbatimOperations.get(operationId)?.jsonBody?.pointer;
  if (!pointer) throw new Error(`Verbatim's ${operationId} takes no JSON body`);
  return pointer;
}

/** The anchor's response schema of an operation for a status, falling back to `default` as OpenAPI does. */
function anchorResponsePointer(operation: DocumentOperation | undefined, status: number): string {
  if (!operation) throw new Error("the operation is not in the anchor");
  const pointer = responseSchemaPointer(anchor.document, operation, status);
  if (pointer === undefined) throw new Error(`the anchor defines no ${status} response of ${operation.operationId}`);
  return pointer;
}

/** The values of an `enum` of the anchor. */
function enumAt(segments: string[]): Array<string | number> {
  const { node } = follow(anchor.document, segments);
  if (!Array.isArray(node)) throw new Error(`no enum at ${segments.join("/")}`);
  return node as Array<string | number>;
}
