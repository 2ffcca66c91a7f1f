import { configDefaults, defineProject } from "vitest/config";
import { engineFreeTestsOnSecondPass } from "../../scripts/engine-free-tests.mjs";

export default defineProject({
  test: {
    name: "postman",
    include: ["test/**/*.test.ts"],
    exclude: [...configDefaults.exclude, ...engineFreeTestsOnSecondPass(import.meta.url)],
    testTimeout: 60_000,
    // Its hook starts the API, whose validators compile first: seconds more on a loaded machine, as in apps/api.
    hookTimeout: 60_000,
  },
});
