import { SchemaPreprocessor } from "express-openapi-validator/dist/middlewares/parsers/schema.preprocessor.js";
import { OpenApiValidator } from "express-openapi-validator/dist/openapi.validator.js";
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
    const validators = vi.spyOn(OpenApiValidator.prototype, "installMiddleware");
    const compiled = vi.spyOn(SchemaPreprocessor.prototype, "preProcess");
    server = await startServer();
    expect(validators.mock.calls.length).toBeGreaterThan(0);
    expect(compiled).toHaveBeenCalledTimes(validators.mock.calls.length);
  });
});
