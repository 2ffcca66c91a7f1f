import { defineProject } from "vitest/config";

export default defineProject({
  // A fresh PGlite takes seconds to start, more on a loaded 2-core machine.
  test: { name: "example-webhook-receiver", include: ["test/**/*.test.ts"], testTimeout: 60_000, hookTimeout: 60_000 },
});
