import { configDefaults, defineProject } from "vitest/config";
import { engineFreeTestsOnSecondPass } from "../../scripts/engine-free-tests.mjs";

export default defineProject({
  // The service runs as a process of its own, which first creates its PGlite database: tens of seconds
  // on a loaded 2-core machine.
  test: {
    name: "example-monitor-to-webhook",
    include: ["test/**/*.test.ts"],
    exclude: [...configDefaults.exclude, ...engineFreeTestsOnSecondPass(import.meta.url)],
    testTimeout: 30_000,
    hookTimeout: 120_000,
  },
});
