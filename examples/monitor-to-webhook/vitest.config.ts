import { configDefaults, defineProject } from "vitest/config";
import { engineFreeTestsOnSecondPass } from "../../scripts/engine-free-tests.mjs";

export default defineProject({
  // A fresh PGlite takes seconds to start, more on a loaded 2-core machine.
  test: {
    name: "example-monitor-to-webhook",
    include: ["test/**/*.test.ts"],
    exclude: [...configDefaults.exclude, ...engineFreeTestsOnSecondPass(import.meta.url)],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
