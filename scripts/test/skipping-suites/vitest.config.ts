import { defineConfig } from "vitest/config";

// Suites that skip, run by plain-summary-reporter.test.ts with and without CI=true; not part of `pnpm test`.
export default defineConfig({
  test: {
    include: ["*.fixture.ts"],
    reporters: [new URL("../../plain-summary-reporter.ts", import.meta.url).pathname],
  },
});
