import { afterEach, describe, expect, it } from "vitest";
import { engineFreeTestsOnSecondPass } from "../engine-free-tests.mjs";

const apiConfig = new URL("../../apps/api/vitest.config.ts", import.meta.url);
const sdkConfig = new URL("../../packages/sdk/vitest.config.ts", import.meta.url);
const exampleConfig = new URL("../../examples/quickstart/vitest.config.ts", import.meta.url);
const databaseUrl = process.env.DATABASE_URL;

afterEach(() => {
  if (databaseUrl === undefined) delete process.env.DATABASE_URL;
  else process.env.DATABASE_URL = databaseUrl;
});

describe("the test files the PostgreSQL pass leaves out", () => {
  it("are none on the embedded pass", () => {
    delete process.env.DATABASE_URL;
    expect(engineFreeTestsOnSecondPass(apiConfig)).toEqual([]);
  });

  it("are the files whose imports never reach the store, on the PostgreSQL pass", () => {
    process.env.DATABASE_URL = "postgres://postgres@127.0.0.1:5432/test";
    const left = engineFreeTestsOnSecondPass(apiConfig);
    expect(left).toEqual(
      expect.arrayContaining([
        "test/asr/decoder.test.ts",
        "test/asr/word-error-rate.test.ts",
        "src/adapters/youtube/video-reference.test.ts",
      ]),
    );
    // health.test.ts reaches the store through test/support/server.ts; config.test.ts reads DATABASE_URL.
    expect(left).not.toContain("test/health.test.ts");
    expect(left).not.toContain("test/platform/credits.test.ts");
    expect(left).not.toContain("src/config.test.ts");
    expect(engineFreeTestsOnSecondPass(sdkConfig)).toContain("test/transport.test.ts");
    // The examples start the API from @verbatim/api.
    expect(engineFreeTestsOnSecondPass(exampleConfig)).toEqual([]);
  });
});
