import type { V1OperationId } from "@verbatim/contract";
import { fromFixture } from "@verbatim/testkit/fake-youtube";
import { registerRecordedLists } from "@verbatim/testkit/youtube-lists";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ErrorBodyShape, type RawRequest, send } from "../support/http.ts";
import {
  boundaryValues,
  DocumentValidator,
  describeErrors,
  isObject,
  type JsonObject,
  operationsOf,
  readVerbatimDocument,
  resolveSchema,
  shownValue,
} from "../support/openapi.ts";
import { serverStartTimeoutMs, startYoutubeServer, type YoutubeTestServer } from "../support/youtube-server.ts";
import { anchorV1, anchorV1Operations, expectAnchorShape } from "./support.ts";

// docs/decisions.md, rule 1, for v1: every request the hosted service's v1
// contract accepts must be accepted by Verbatim's v1, and every answer of Verbatim's v1 must
// validate against that contract's (open) schemas. jobs.test.ts checks the answers of a real job.
const verbatim = new DocumentValidator(readVerbatimDocument("v1"), "verbatim-openapi-v1", {
  discriminator: false,
});
const verbatimOperations = new Map(
  operationsOf(verbatim.document).map((operation) => [operation.operationId, operation]),
);

const captioned = "GJLlxj_dtq8";
const captionsOff = "captionsOff";

const probes: Array<{ operationId: V1OperationId; what: string; request: RawRequest }> = [
  {
    operationId: "healthCheck",
    what: "liveness",
    request: { method: "GET", path: "/api/v1/health", authorized: false },
  },
  { operationId: "me", what: "a valid key", request: { method: "GET", path: "/api/v1/me" } },
  {
    operationId: "fetchVideoTranscript",
    what: "captions with segments",
    request: { method: "POST", path: "/api/v1/transcripts/video", json: { video: captioned } },
  },
  {
    operationId: "fetchVideoTranscript",
    what: "captions as text",
    request: { method: "POST", path: "/api/v1/transcripts/video", json: { video: captioned, timestamps: false } },
  },
  {
    operationId: "fetchTranscriptsBatch",
    what: "ok, no_transcript and error rows",
    request: {
      method: "POST",
      path: "/api/v1/transcripts/batch",
      json: { video_ids: [captioned, captionsOff, "https://youtu.be/aBcDeFgHiJk"], mode: "captions" },
    },
  },
  {
    operationId: "fetchChannelVideos",
    what: "a recorded channel",
    request: {
      method: "POST",
      path: "/api/v1/transcripts/channel",
      json: { channel: "https://www.youtube.com/user/creativecommons", limit: 7 },
    },
  },
  {
    operationId: "fetchPlaylistVideos",
    what: "a recorded playlist",
    request: {
      method: "POST",
      path: "/api/v1/transcripts/playlist",
      json: { playlist: "https://www.youtube.com/playlist?list=PLoumn5BIsUDeGF1vy5Nylf_RJKn5aL_nr", limit: 7 },
    },
  },
  {
    operationId: "searchVideos",
    what: "a recorded search",
    request: { method: "POST", path: "/api/v1/transcripts/search", json: { query: "test", limit: 7 } },
  },
  {
    operationId: "fetchVideoTranscript",
    what: "no captions (an error with ai_fallback)",
    request: { method: "POST", path: "/api/v1/transcripts/video", json: { video: captionsOff, mode: "captions" } },
  },
  {
    operationId: "fetchVideoTranscript",
    what: "a body without its required field",
    request: { method: "POST", path: "/api/v1/transcripts/video", json: {} },
  },
  {
    operationId: "me",
    what: "no key",
    request: { method: "GET", path: "/api/v1/me", authorized: false },
  },
  {
    operationId: "getTranscriptJob",
    what: "an unknown job",
    request: { method: "GET", path: "/api/v1/transcripts/jobs/job_unknown" },
  },
  {
    operationId: "fetchPlaylistVideos",
    what: "a cursor the server never issued",
    request: { method: "POST", path: "/api/v1/transcripts/playlist", json: { playlist: "PLx", cursor: "v1.expired" } },
  },
  {
    operationId: "fetchVideoTranscript",
    what: "a body over 1 MiB",
    request: { method: "POST", path: "/api/v1/transcripts/video", json: { video: "x".repeat(1024 * 1024) } },
  },
];

let youtube: YoutubeTestServer;
beforeAll(async () => {
  youtube = await startYoutubeServer();
  youtube.fake
    .serveRecordedVideos()
    .player(captionsOff, fromFixture("youtube-transcript-api/youtube_transcripts_disabled.innertube.json.static"));
  registerRecordedLists(youtube.fake);
}, serverStartTimeoutMs);
afterAll(() => youtube?.close());

describe("the anchor's v1 operations in Verbatim's v1 contract", () => {
  it("are the same eight, at the same methods and paths", () => {
    const theirs = anchorV1Operations.map((operation) => `${operation.method.toUpperCase()} ${operation.path}`);
    const ours = [...verbatimOperations.values()].map(
      (operation) => `${operation.method.toUpperCase()} /api/v1${operation.path}`,
    );
    expect(ours.sort()).toEqual(theirs.sort());
    expect([...verbatimOperations.keys()].sort()).toEqual(
      anchorV1Operations.map((operation) => operation.operationId).sort(),
    );
  });

  const examples = anchorV1Operations.flatMap((operation) =>
    operation.bodyExamples.map((example) => ({ operation, ...example })),
  );
  for (const { operation, name, value } of examples) {
    it(`accepts the anchor's ${operation.operationId} example "${name}" in its schema and past validation`, async () => {
      const errors = verbatim.errors(bodyPointer(operation.operationId), value);
      expect(errors, `${describeErrors(errors)}\n${JSON.stringify(value)}`).toEqual([]);
      const answer = await send(youtube.server, { method: operation.method, path: operation.path, json: value });
      expect([400, 413, 500], answer.text).not.toContain(answer.status);
      expect((answer.body as ErrorBodyShape).error?.code, answer.text).not.toBe("invalid_request");
      expectAnchorShape(operation.operationId, answer);
    });
  }
});

describe("Verbatim's v1 request schemas accept every boundary value the anchor's accept", () => {
  const cases = anchorV1Operations.flatMap((operation) => {
    const base = operation.bodyExamples[0]?.value;
    if (!operation.jsonBody || !isObject(base)) return [];
    const properties = resolveSchema(anchorV1.document, operation.jsonBody.schema).properties;
    if (!isObject(properties)) return [];
    return Object.entries(properties).flatMap(([field, schema]) =>
      boundaryValues(anchorV1.document, schema as JsonObject).map((value) => ({
        title: `${operation.operationId} accepts ${field} as ${shownValue(value)}, as the anchor does`,
        operation,
        body: { ...base, [field]: value },
      })),
    );
  });

  it("has cases to check", () => {
    expect(cases.length).toBeGreaterThan(10);
  });

  for (const { title, operation, body } of cases) {
    it(title, () => {
      const anchorErrors = anchorV1.errors(operation.jsonBody?.pointer ?? "", body);
      expect(anchorErrors, `not a value the anchor accepts: ${describeErrors(anchorErrors)}`).toEqual([]);
      const errors = verbatim.errors(bodyPointer(operation.operationId), body);
      expect(errors, describeErrors(errors)).toEqual([]);
    });
  }
});

describe("answers of Verbatim's v1, valid against the anchor's schemas", () => {
  it("probes every operation (jobs.test.ts also checks a job running to its end)", () => {
    const probed = new Set<string>(probes.map((probe) => probe.operationId));
    expect([...verbatimOperations.keys()].filter((operationId) => !probed.has(operationId))).toEqual([]);
  });

  for (const { operationId, what, request } of probes) {
    it(`answers ${operationId} for ${what} in the anchor's shape`, async () => {
      const answer = await send(youtube.server, request);
      expect(answer.status, answer.text).not.toBe(500);
      expectAnchorShape(operationId, answer);
    });
  }
});

function bodyPointer(operationId: string): string {
  const pointer = verbatimOperations.get(operationId)?.jsonBody?.pointer;
  if (!pointer) throw new Error(`Verbatim's v1 ${operationId} takes no JSON body`);
  return pointer;
}
