import { configDefaults, defineProject } from "vitest/config";
import { engineFreeTestsOnSecondPass } from "./engine-free-tests.mjs";

export default defineProject({
  test: {
    name: "scripts",
    include: ["test/**/*.test.ts"],
    exclude: [...configDefaults.exclude, ...engineFreeTestsOnSecondPass(import.meta.url)],
    testTimeout: 60_000,
  },
});
