import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    projects: ["packages/*", "apps/*", "examples/*", "scripts"],
    reporters: ["default", "./scripts/plain-summary-reporter.ts"],
  },
});
