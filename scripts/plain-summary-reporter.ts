import { appendFileSync } from "node:fs";
import type { SerializedError } from "vitest";
import type { Reporter, TestModule } from "vitest/node";

/**
 * Ends a test run with one plain `N passed, N failed, N skipped` line, which CI reads. When
 * `VERBATIM_TEST_TOTALS` names a file, the counts are also appended to it, so CI can add up
 * the runs on both database engines into one final line.
 */
export default class PlainSummaryReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const module of modules) {
      let failedTests = 0;
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === "passed") passed++;
        else if (state === "failed") failedTests++;
        else skipped++;
      }
      failed += failedTests;
      // A file that fails to load, or whose hook fails, leaves its tests skipped or uncounted: it still fails the run.
      if (failedTests === 0 && brokeOutsideTests(module)) failed++;
    }
    // An error no test owns (a leaked rejection, a crashed worker) fails the run too.
    failed += unhandledErrors.length;
    process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
    const totals = process.env.VERBATIM_TEST_TOTALS;
    if (totals) appendFileSync(totals, `${JSON.stringify({ passed, failed, skipped })}\n`);
  }
}

function brokeOutsideTests(module: TestModule): boolean {
  if (module.state() === "failed" || module.errors().length > 0) return true;
  for (const suite of module.children.allSuites()) {
    if (suite.state() === "failed" || suite.errors().length > 0) return true;
  }
  return false;
}
