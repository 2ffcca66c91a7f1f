import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // Config files, not folders: a folder's README would otherwise be taken for a project.
    projects: [
      "packages/*/vitest.config.ts",
      "apps/*/vitest.config.ts",
      "examples/*/vitest.config.ts",
      "scripts/vitest.config.ts",
    ],
    reporters: ["default", "./scripts/plain-summary-reporter.ts"],
    // One migrated embedded store per run, which every test's store and service starts from.
    globalSetup: ["./apps/api/test/support/store-template-setup.ts"],
    // Test files wait on sockets, child processes and timers more than they compute, and each has its
    // own database and ports: one file per core, not vitest's default of one fewer than the cores.
    maxWorkers: availableParallelism(),
  },
});
