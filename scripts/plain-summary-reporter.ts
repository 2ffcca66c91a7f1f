import { appendFileSync } from "node:fs";
import { dirname, relative } from "node:path";
import { fileURLToPath } from "node:url";
import type { SerializedError } from "vitest";
import type { Reporter, TestModule } from "vitest/node";
import { currentEngine, isExpectedSkip } from "./expected-skips.mjs";
import { describeFailures, describeSlowest, type FileTime, slowestFiles } from "./test-summary.mjs";

const repositoryRoot = dirname(dirname(fileURLToPath(import.meta.url)));

/**
 * Ends a test run with the failed tests by name, the ten slowest files, and one plain
 * `N passed, N failed, N skipped` line, which CI reads as the last. When `VERBATIM_TEST_TOTALS`
 * names a file, the counts, the failures and the file times are also appended to it, so CI can
 * add up the runs on both database engines and name what failed at the end of its log. Under
 * CI=true a skip scripts/expected-skips.mjs does not list counts as a failure, and fails the run.
 */
export default class PlainSummaryReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError>): void {
    let passed = 0;
    let skipped = 0;
    const failures: string[] = [];
    const unexpectedSkips: string[] = [];
    const times: FileTime[] = [];
    const engine = currentEngine();
    for (const module of modules) {
      const file = [module.project.name, module.relativeModuleId].filter(Boolean).join(" ");
      const path = relative(repositoryRoot, module.moduleId);
      // A file that fails to load, or whose hook fails, leaves its tests skipped or uncounted: it still fails the run.
      const broke = brokeOutsideTests(module);
      const failuresBefore = failures.length;
      for (const test of module.children.allTests()) {
        const result = test.result();
        if (result.state === "passed") passed++;
        else if (result.state === "failed") failures.push(`${file} > ${test.fullName}`);
        else if (broke || !process.env.CI || isExpectedSkip(path, test.fullName, engine)) skipped++;
        else {
          const note = result.state === "skipped" && result.note ? `: ${result.note}` : "";
          unexpectedSkips.push(`${file} > ${test.fullName} (skipped, which CI does not expect${note})`);
        }
      }
      if (failures.length === failuresBefore && broke) failures.push(`${file} (outside its tests)`);
      const { collectDuration, duration } = module.diagnostic();
      times.push({ file, seconds: Math.round((collectDuration + duration) / 100) / 10 });
    }
    // An error no test owns (a leaked rejection, a crashed worker) fails the run too.
    for (const error of unhandledErrors) failures.push(`unhandled error: ${error.message ?? error.name ?? "unknown"}`);
    failures.push(...unexpectedSkips);
    // vitest counts a skip as no failure; the run's exit status must tell CI otherwise.
    if (unexpectedSkips.length > 0) process.exitCode = 1;
    const slowest = slowestFiles(times);
    const failed = failures.length;
    process.stdout.write(`\n${describeFailures(failures)}${describeSlowest(slowest)}`);
    process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
    const totals = process.env.VERBATIM_TEST_TOTALS;
    if (totals) appendFileSync(totals, `${JSON.stringify({ passed, failed, skipped, failures, slowest })}\n`);
  }
}

function brokeOutsideTests(module: TestModule): boolean {
  if (module.state() === "failed" || module.errors().length > 0) return true;
  for (const suite of module.children.allSuites()) {
    if (suite.state() === "failed" || suite.errors().length > 0) return true;
  }
  return false;
}
