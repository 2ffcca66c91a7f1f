import { SchemaPreprocessor } from "express-openapi-validator/dist/middlewares/parsers/schema.preprocessor.js";
import { afterEach, describe, expect, it, vi } from "vitest";
import { startServer, type TestServer } from "./server.ts";

let server: TestServer | undefined;

afterEach(async () => {
  vi.restoreAllMocks();
  await server?.close();
  server = undefined;
});

describe("a test server", () => {
  // A document compiled after the start runs in the middle of a test's first request, whose upstream timeouts then fire.
  it("has compiled the OpenAPI document of every validator of the app when it starts", async () => {
    server = await startServer();
    const compiled = vi.spyOn(SchemaPreprocessor.prototype, "preProcess");
    for (const mount of ["/api/v2", "/api/v1", "/dashboard/api"]) {
      const answer = await fetch(`${server.baseUrl}${mount}/no-such-operation`);
      expect(answer.status, mount).toBe(404);
    }
    expect(compiled).not.toHaveBeenCalled();
  });
});
