import { RequestValidator } from "express-openapi-validator/dist/middlewares/openapi.request.validator.js";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { expectErrorEnvelope, expectIssueAt, send } from "./support/http.ts";
import { startServer, type TestServer } from "./support/server.ts";

let server: TestServer;

beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server?.close());
afterEach(() => {
  vi.restoreAllMocks();
});

/** Counts the validators compiled from now on: the library builds one per operation and content type. */
function countCompiled() {
  const validator = RequestValidator.prototype as unknown as { buildMiddleware: (...args: unknown[]) => unknown };
  return vi.spyOn(validator, "buildMiddleware");
}

describe("the request validator's compiled validators", () => {
  it("stay one per operation however many Content-Types strangers name, with and without a body", async () => {
    const compiled = countCompiled();
    for (let index = 0; index < 20; index++) {
      const health = await send(server, {
        method: "GET",
        path: "/api/v2/health",
        authorized: false,
        headers: { "content-type": `text/x-probe-${index}; nonce=${index}` },
      });
      expect(health.status, health.text).toBe(200);
      const signIn = await send(server, {
        method: "POST",
        path: "/dashboard/api/session",
        authorized: false,
        raw: JSON.stringify({ api_key: `vb_live_${"x".repeat(32)}` }),
        headers: { "content-type": `application/json; nonce=${index}` },
      });
      expectErrorEnvelope(signIn, 401, "unauthorized");
    }
    expect(compiled.mock.calls.length).toBeLessThanOrEqual(2);
  });

  it("refuses a body of another media type with 400 at /headers/content-type, before validation", async () => {
    const compiled = countCompiled();
    for (let index = 0; index < 5; index++) {
      const answer = await send(server, {
        method: "POST",
        path: "/api/v2/transcripts/search",
        raw: JSON.stringify({ query: "x" }),
        headers: { "content-type": `text/x-probe-${index}` },
      });
      expectErrorEnvelope(answer, 400, "invalid_request");
      expectIssueAt(answer, "/headers/content-type");
    }
    expect(compiled).not.toHaveBeenCalled();
  });
});
