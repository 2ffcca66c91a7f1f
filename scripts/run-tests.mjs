// The README's test command: every vitest project, then the Python SDK's pytest suite, each
// appending its `{passed, failed, skipped}` line to a totals file, and one final
// `N passed, N failed, N skipped` line adding both up (a run that recorded nothing counts as failed). When
// CI names its own `VERBATIM_TEST_TOTALS`, both lines go there too. With arguments, only vitest
// runs, with them (`pnpm test apps/api/test/health.test.ts`). On PostgreSQL (`DATABASE_URL`)
// the files the engine cannot change are left out (scripts/engine-free-tests.mjs), and so is
// pytest: the Python SDK is a client of the API, like the Node SDK's tests left out there.
import { spawnSync } from "node:child_process";
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);

function run(command, commandArgs, options = {}) {
  const result = spawnSync(command, commandArgs, { stdio: "inherit", cwd: root, ...options });
  if (result.error) throw result.error;
  return result.status ?? 1;
}

if (args.length > 0) process.exit(run("pnpm", ["exec", "vitest", "run", ...args]));

const scratch = mkdtempSync(join(tmpdir(), "verbatim-tests-"));
const totals = join(scratch, "totals.jsonl");
writeFileSync(totals, "");
const env = { ...process.env, VERBATIM_TEST_TOTALS: totals };
const runs = [run("pnpm", ["exec", "vitest", "run"], { env })];
if (!process.env.DATABASE_URL) {
  runs.push(
    run(process.execPath, [join(root, "scripts", "python-env.mjs"), "pytest"], {
      env,
      cwd: join(root, "packages", "sdk-python"),
    }),
  );
}
const recorded = readFileSync(totals, "utf8");
if (process.env.VERBATIM_TEST_TOTALS) appendFileSync(process.env.VERBATIM_TEST_TOTALS, recorded);
const summary = run(process.execPath, [join(root, "scripts", "sum-test-totals.mjs"), totals, String(runs.length)]);
rmSync(scratch, { recursive: true, force: true });
process.exit(runs.every((status) => status === 0) && summary === 0 ? 0 : 1);
