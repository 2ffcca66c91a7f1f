import { defineConfig } from "vitest/config";

// Suites that break outside their tests, run by plain-summary-reporter.test.ts; not part of `pnpm test`.
export default defineConfig({
  test: {
    include: ["*.fixture.ts"],
    reporters: [new URL("../../plain-summary-reporter.ts", import.meta.url).pathname],
  },
});
