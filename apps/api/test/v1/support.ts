import { expect } from "vitest";
import { v1DeprecationHeaders } from "../../src/http/v1/version.ts";
import type { Answer } from "../support/http.ts";

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
