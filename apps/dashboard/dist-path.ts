import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/**
 * Absolute path of the built dashboard (`vite build`): the API serves it at `/dashboard`. Found
 * through the package rather than beside this module, because the compiled service bundles this
 * module and runs it from elsewhere.
 */
export const dashboardDist = join(
  dirname(createRequire(import.meta.url).resolve("@verbatim/dashboard/package.json")),
  "dist",
);
