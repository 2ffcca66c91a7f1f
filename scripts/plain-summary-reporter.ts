import { appendFileSync } from "node:fs";
import type { Reporter, TestModule } from "vitest/node";

/**
 * Ends a test run with one plain `N passed, N failed, N skipped` line, which CI reads. When
 * `VERBATIM_TEST_TOTALS` names a file, the counts are also appended to it, so CI can add up
 * the runs on both database engines into one final line.
 */
export default class PlainSummaryReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const module of modules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === "passed") passed++;
        else if (state === "failed") failed++;
        else skipped++;
      }
      // A file that fails to load has no tests to count; it still must fail the run.
      if (module.state() === "failed" && module.children.size === 0) failed++;
    }
    process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
    const totals = process.env.VERBATIM_TEST_TOTALS;
    if (totals) appendFileSync(totals, `${JSON.stringify({ passed, failed, skipped })}\n`);
  }
}
