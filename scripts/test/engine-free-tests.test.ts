import { existsSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { engineFreeTestsOnSecondPass, engineIndependent } from "../engine-free-tests.mjs";

const apiConfig = new URL("../../apps/api/vitest.config.ts", import.meta.url);
const sdkConfig = new URL("../../packages/sdk/vitest.config.ts", import.meta.url);
const exampleConfig = new URL("../../examples/quickstart/vitest.config.ts", import.meta.url);
const repositoryRoot = fileURLToPath(new URL("../..", import.meta.url));
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
        // It imports the type of a row of live-store.ts, which reaches the store.
        "src/services/live/live-views.test.ts",
      ]),
    );
    // health.test.ts reaches the store through test/support/server.ts.
    expect(left).not.toContain("test/health.test.ts");
    expect(left).not.toContain("test/platform/credits.test.ts");
    expect(engineFreeTestsOnSecondPass(sdkConfig)).toContain("test/transport.test.ts");
  });

  it("are the files named engine-independent too, though they reach the store", () => {
    process.env.DATABASE_URL = "postgres://postgres@127.0.0.1:5432/test";
    const left = engineFreeTestsOnSecondPass(apiConfig);
    expect(left).toEqual(
      expect.arrayContaining([
        "src/config.test.ts",
        "test/request-validation.test.ts",
        "test/docs/api-reference.test.ts",
        "test/sdk/retries.test.ts",
      ]),
    );
    expect(left).not.toContain("test/contract-fuzz.test.ts");
    expect(left).not.toContain("test/monitors/scheduler.test.ts");
    expect(engineFreeTestsOnSecondPass(exampleConfig)).toEqual(["test/quickstart.test.ts"]);
  });

  it("are named by paths each of which leaves out a test file", () => {
    process.env.DATABASE_URL = "postgres://postgres@127.0.0.1:5432/test";
    const leftOut = projectConfigs().flatMap((config) => {
      const projectRoot = relative(repositoryRoot, fileURLToPath(new URL(".", config)));
      return engineFreeTestsOnSecondPass(config).map((file) => join(projectRoot, file));
    });
    for (const path of engineIndependent.keys()) {
      expect(
        leftOut.some((file) => file === path || file.startsWith(`${path}/`)),
        path,
      ).toBe(true);
    }
  });
});

/** Every vitest project's config, as the root config lists them. */
function projectConfigs(): URL[] {
  const workspaceProjects = ["packages", "apps", "examples"].flatMap((folder) =>
    readdirSync(new URL(`../../${folder}/`, import.meta.url))
      .map((name) => new URL(`../../${folder}/${name}/vitest.config.ts`, import.meta.url))
      .filter((config) => existsSync(config)),
  );
  return [...workspaceProjects, new URL("../vitest.config.ts", import.meta.url)];
}
