// Adds up the counts that the plain summary reporter appended for each test run, and prints
// them as CI's one final `N passed, N failed` line. A run that recorded nothing counts as failed.
import { readFileSync } from "node:fs";

const [file, expectedRuns] = process.argv.slice(2);
const runs = readFileSync(file, "utf8")
  .split("\n")
  .filter(Boolean)
  .map((line) => JSON.parse(line));
const sum = (key) => runs.reduce((total, run) => total + run[key], 0);
const missingRuns = Math.max(Number(expectedRuns) - runs.length, 0);
process.stdout.write(`\n${sum("passed")} passed, ${sum("failed") + missingRuns} failed\n`);
