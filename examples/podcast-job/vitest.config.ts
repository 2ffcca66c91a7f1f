import { defineProject } from "vitest/config";

export default defineProject({
  // A fresh PGlite takes seconds to start, and speech recognition of the 11 s fixture takes seconds more on 2 cores.
  test: { name: "example-podcast-job", include: ["test/**/*.test.ts"], testTimeout: 60_000, hookTimeout: 60_000 },
});
