import { configDefaults, defineProject } from "vitest/config";
import { engineFreeTestsOnSecondPass } from "../../scripts/engine-free-tests.mjs";

export default defineProject({
  test: {
    name: "api",
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    exclude: [...configDefaults.exclude, ...engineFreeTestsOnSecondPass(import.meta.url)],
    // A worker keeps its modules from one file to the next instead of importing the app again for
    // each: that import was a third of the suite's CPU. The files share no state but through what
    // they close or restore themselves (servers, stores, stubbed variables, fake timers).
    isolate: false,
    // Speech recognition runs for real; on a loaded 2-core machine an 11 s recording can take 20 s.
    testTimeout: 60_000,
    // A fresh PGlite takes seconds to start, more on a loaded 2-core machine.
    hookTimeout: 60_000,
  },
});
