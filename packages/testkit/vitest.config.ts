import { configDefaults, defineProject } from "vitest/config";
import { engineFreeTestsOnSecondPass } from "../../scripts/engine-free-tests.mjs";

export default defineProject({
  test: {
    name: "testkit",
    include: ["src/**/*.test.ts"],
    exclude: [...configDefaults.exclude, ...engineFreeTestsOnSecondPass(import.meta.url)],
    // The platform double makes its media with ffmpeg on first use: seconds on a loaded 2-core machine.
    testTimeout: 60_000,
  },
});
