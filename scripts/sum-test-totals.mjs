// Adds up what the plain summary reporter (and the Python suite) appended for each test run, and
// prints every failed test by name, the ten slowest files of all runs, and CI's one final
// `N passed, N failed, N skipped` line; exits 1 when any failed. A run that recorded nothing
// counts as failed.
import { readFileSync } from "node:fs";
import { describeFailures, describeSlowest, slowestFiles } from "./test-summary.mjs";

const [file, expectedRuns] = process.argv.slice(2);
const runs = readFileSync(file, "utf8")
  .split("\n")
  .filter(Boolean)
  .map((line) => JSON.parse(line));
const sum = (key) => runs.reduce((total, run) => total + run[key], 0);
const missingRuns = Math.max(Number(expectedRuns) - runs.length, 0);
const failures = runs.flatMap((run, index) => (run.failures ?? []).map((failure) => `run ${index + 1}: ${failure}`));
const slowest = slowestFiles(
  runs.flatMap((run, index) =>
    (run.slowest ?? []).map(({ file, seconds }) => ({ file: `run ${index + 1}: ${file}`, seconds })),
  ),
);
process.stdout.write(`\n${describeFailures(failures)}${describeSlowest(slowest)}`);
const failed = sum("failed") + missingRuns;
process.stdout.write(`\n${sum("passed")} passed, ${failed} failed, ${sum("skipped")} skipped\n`);
if (failed > 0) process.exitCode = 1;
