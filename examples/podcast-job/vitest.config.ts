import { configDefaults, defineProject } from "vitest/config";
import { engineFreeTestsOnSecondPass } from "../../scripts/engine-free-tests.mjs";

export default defineProject({
  // A fresh PGlite takes seconds to start, and speech recognition of the 11 s fixture takes seconds more on 2 cores.
  test: {
    name: "example-podcast-job",
    include: ["test/**/*.test.ts"],
    exclude: [...configDefaults.exclude, ...engineFreeTestsOnSecondPass(import.meta.url)],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
