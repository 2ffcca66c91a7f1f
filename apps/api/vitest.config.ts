import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "api",
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 20_000,
    // A fresh PGlite takes seconds to start, more on a loaded 2-core machine.
    hookTimeout: 60_000,
  },
});
