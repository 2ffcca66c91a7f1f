#!/usr/bin/env node
// The operator CLI. It runs the TypeScript sources through tsx, as the service does.
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const tsx = require.resolve("tsx");
const entry = fileURLToPath(new URL("../src/cli/main.ts", import.meta.url));
const { status } = spawnSync(process.execPath, ["--import", tsx, entry, ...process.argv.slice(2)], {
  stdio: "inherit",
});
process.exit(status ?? 1);
