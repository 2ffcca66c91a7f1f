import { expect } from "vitest";
import { v1DeprecationHeaders } from "../../src/http/v1/version.ts";
import type { Answer } from "../support/http.ts";
import {
  DocumentValidator,
  describeErrors,
  operationsOf,
  readJsonDocument,
  responseSchemaPointer,
} from "../support/openapi.ts";

/** The hosted service's published v1 contract (a copy of the anchor; see fixtures/transcriptfetch/SOURCE.md). */
export const anchorV1 = new DocumentValidator(
  readJsonDocument(new URL("../fixtures/transcriptfetch/transcriptfetch-api-v1-openapi.json", import.meta.url)),
  "transcriptfetch-openapi-v1",
  { discriminator: true },
);

/** The anchor's operations; their paths carry `/api/v1`. */
export const anchorV1Operations = operationsOf(anchorV1.document);

/**
 * Asserts that an answer of Verbatim's v1 validates against the anchor's response schema of the
 * operation for its status (falling back to `NXX` and `default`, as OpenAPI does, and
 * to its `ErrorEnvelope` for a failure status it does not list). The anchor's
 * schemas are open, so Verbatim's extra fields are allowed; its types, enums and required fields hold.
 */
export function expectAnchorShape(operationId: string, answer: Answer): void {
  const operation = anchorV1Operations.find((candidate) => candidate.operationId === operationId);
  if (!operation) throw new Error(`the anchor has no ${operationId}`);
  const pointer = responseSchemaPointer(anchorV1.document, operation, answer.status);
  // A failure status the anchor does not list (413, 500) still answers its one error envelope.
  if (pointer === undefined && answer.status < 400)
    throw new Error(`the anchor defines no ${answer.status} of ${operationId}`);
  const errors = anchorV1.errors(pointer ?? "/components/schemas/ErrorEnvelope", answer.body);
  expect(errors, `${describeErrors(errors)}\n${answer.text.slice(0, 2000)}`).toEqual([]);
}

/** A v1 error envelope as a test reads it. */
export interface V1ErrorShape {
  ok?: unknown;
  request_id?: string;
  error?: { code?: string; message?: string; issues?: Array<{ path: string; message: string }> };
  reason?: string;
  ai_fallback?: Record<string, unknown>;
}

/** Every v1 response names its successor and its deprecation (RFC 9745, RFC 8288). */
export function expectDeprecated(answer: Answer): void {
  expect(answer.headers.get("deprecation"), answer.text).toBe(v1DeprecationHeaders.Deprecation);
  expect(answer.headers.get("deprecation"), answer.text).toMatch(/^@\d+$/);
  expect(answer.headers.get("link"), answer.text).toBe('</api/v2>; rel="successor-version"');
}

/**
 * Asserts the v1 error envelope: the status, `{ok: false, request_id, error: {code, message}}`
 * with `request_id` equal to `X-Request-Id`, no `number` or `docs`, and the deprecation headers.
 */
export function expectV1Error(answer: Answer, status: number, code: string): V1ErrorShape {
  const shown = answer.text.slice(0, 2000);
  expect(answer.status, shown).toBe(status);
  expect(answer.headers.get("content-type"), shown).toMatch(/^application\/json/);
  const body = answer.body as V1ErrorShape;
  expect(body.ok, shown).toBe(false);
  expect(body.request_id, shown).toMatch(/^req_[0-9A-Z]{26}$/);
  expect(answer.headers.get("x-request-id"), shown).toBe(body.request_id);
  expect(body.error?.code, shown).toBe(code);
  expect(body.error?.message, shown).toMatch(/\S/);
  expect(body.error, shown).not.toHaveProperty("number");
  expect(body.error, shown).not.toHaveProperty("docs");
  expectDeprecated(answer);
  return body;
}
