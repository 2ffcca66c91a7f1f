import { configDefaults, defineProject } from "vitest/config";
import { engineFreeTestsOnSecondPass } from "../../scripts/engine-free-tests.mjs";

export default defineProject({
  test: {
    name: "mcp",
    include: ["test/**/*.test.ts"],
    exclude: [...configDefaults.exclude, ...engineFreeTestsOnSecondPass(import.meta.url)],
    hookTimeout: 60_000,
  },
});
