import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "api",
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // Speech recognition runs for real; on a loaded 2-core machine an 11 s recording can take 20 s.
    testTimeout: 60_000,
    // A fresh PGlite takes seconds to start, more on a loaded 2-core machine.
    hookTimeout: 60_000,
  },
});
