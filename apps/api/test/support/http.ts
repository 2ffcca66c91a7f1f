import { type ErrorCode, errorTable } from "@verbatim/contract";
import { expect } from "vitest";
import { DocumentValidator, describeErrors, readVerbatimDocument } from "./openapi.ts";
import type { TestServer } from "./server.ts";

/** What a request answered: the status, the headers, the raw text and, when it is JSON, the parsed body. */
export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  body: unknown;
}

/** The error envelope as a test reads it; nothing here is trusted until asserted. */
export interface ErrorBodyShape {
  ok?: unknown;
  request_id?: string;
  error?: {
    code?: string;
    number?: number;
    message?: string;
    docs?: string;
    issues?: Array<{ path: string; message: string }>;
  };
}

/** A request of these tests: raw text (to send what no SDK would) or a value sent as JSON. */
export interface RawRequest {
  method: string;
  /** The path and query, from the server's root: `/api/v2/transcripts/video`. */
  path: string;
  json?: unknown;
  raw?: string;
  headers?: Record<string, string>;
  /** Send the test account's key as `Authorization: Bearer` (the default), so valid requests reach their handler. */
  authorized?: boolean;
}

/** Sends a request over real HTTP and reads its answer whatever its type. */
export async function send(server: TestServer, request: RawRequest): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (request.authorized !== false) headers.authorization = `Bearer ${server.key.key}`;
  if (request.json !== undefined) headers["content-type"] = "application/json";
  Object.assign(headers, request.headers);
  const response = await fetch(`${server.baseUrl}${request.path}`, {
    method: request.method.toUpperCase(),
    headers,
    ...(request.json !== undefined ? { body: JSON.stringify(request.json) } : {}),
    ...(request.raw !== undefined ? { body: request.raw } : {}),
  });
  const text = await response.text();
  let body: unknown = text;
  if (text !== "" && response.headers.get("content-type")?.startsWith("application/json")) body = JSON.parse(text);
  return { status: response.status, headers: response.headers, text, body };
}

let verbatim: DocumentValidator | undefined;

/** Verbatim's own document as a validator, built once: compiling it takes a moment. */
export function verbatimValidator(): DocumentValidator {
  verbatim ??= new DocumentValidator(readVerbatimDocument(), "verbatim-openapi-v2", { discriminator: false });
  return verbatim;
}

/**
 * Asserts the error envelope of docs/decisions.md rule 12: the status, JSON, the code and number
 * of the error table, a docs link to the catalog, `request_id` equal to `X-Request-Id`, `issues`
 * when the code carries them, and the contract's `ErrorEnvelope` schema (the server validates the
 * responses of matched operations only, not 404s of unknown paths).
 */
export function expectErrorEnvelope(answer: Answer, status: number, code: ErrorCode): void {
  const shown = answer.text.slice(0, 2000);
  expect(answer.status, shown).toBe(status);
  expect(answer.headers.get("content-type"), shown).toMatch(/^application\/json/);
  const body = answer.body as ErrorBodyShape;
  expect(body.ok, shown).toBe(false);
  expect(body.request_id, shown).toMatch(/^req_[0-9A-Z]{26}$/);
  expect(answer.headers.get("x-request-id"), shown).toBe(body.request_id);
  expect(body.error?.code, shown).toBe(code);
  expect(body.error?.number, shown).toBe(errorTable[code].number);
  expect(body.error?.message, shown).toMatch(/\S/);
  expect(docsPathOf(answer), shown).toBe(`/docs/errors/${code}`);
  if (errorTable[code].carries === "issues") {
    expect(body.error?.issues, shown).toEqual(expect.any(Array));
    expect(body.error?.issues?.length, shown).toBeGreaterThan(0);
    for (const issue of body.error?.issues ?? []) {
      expect(issue, shown).toEqual({ path: expect.stringMatching(/^\//), message: expect.stringMatching(/\S/) });
    }
  }
  const errors = verbatimValidator().errors("/components/schemas/ErrorEnvelope", body);
  expect(errors, `${describeErrors(errors)}\n${shown}`).toEqual([]);
}

/** The path of `error.docs`, which must be an absolute URL (a relative one makes `new URL` throw). */
export function docsPathOf(answer: Answer): string {
  const docs = (answer.body as ErrorBodyShape).error?.docs ?? "";
  return new URL(docs).pathname;
}

/** Asserts that one of the answer's issues names `path`, such as `/body/video`. */
export function expectIssueAt(answer: Answer, path: string): void {
  const paths = ((answer.body as ErrorBodyShape).error?.issues ?? []).map((issue) => issue.path);
  expect(paths, answer.text.slice(0, 2000)).toContain(path);
}
