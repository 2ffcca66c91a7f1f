import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "postman",
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
  },
});
