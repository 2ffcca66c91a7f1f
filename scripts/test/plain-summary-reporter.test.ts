import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const suites = new URL("./broken-suites/", import.meta.url).pathname;
const vitest = new URL("../../node_modules/.bin/vitest", import.meta.url).pathname;
const sumTestTotals = new URL("../sum-test-totals.mjs", import.meta.url).pathname;

function scratchFile(): string {
  return join(mkdtempSync(join(tmpdir(), "verbatim-reporter-")), "totals");
}

describe("the plain summary line", () => {
  it("counts suites that break outside their tests as failed, and names every failure and the slowest files", () => {
    const totals = scratchFile();
    const run = spawnSync(vitest, ["run", "--root", suites], {
      encoding: "utf8",
      env: { ...process.env, VERBATIM_TEST_TOTALS: totals, NO_COLOR: "1" },
    });
    const lines = run.stdout.trim().split("\n");
    // passing, and the test beside the inner suite pass; each hook failure, the failed import, the failed test and the leak fail once.
    expect(lines.at(-1), run.stdout + run.stderr).toBe("3 passed, 5 failed, 2 skipped");
    expect(run.status).not.toBe(0);
    const failures = [
      "failing-hook.fixture.ts (outside its tests)",
      "failing-import.fixture.ts (outside its tests)",
      "failing-inner-hook.fixture.ts (outside its tests)",
      "failing-test.fixture.ts > a suite > has a test that fails",
      "unhandled error: leaked",
    ];
    const recorded = JSON.parse(readFileSync(totals, "utf8"));
    expect(recorded).toMatchObject({ passed: 3, failed: 5, skipped: 2, failures });
    expect(recorded.slowest).toHaveLength(6);
    expect(run.stdout).toContain(`Failed:\n${failures.map((failure) => `  ${failure}\n`).join("")}`);
    expect(run.stdout).toContain("The 6 slowest files:\n");
  });
});

describe("the sum of CI's runs", () => {
  it("names each run's failures and the ten slowest files of all runs, then adds the runs up, counting a missing run as failed", () => {
    const totals = scratchFile();
    const slowest = (seconds: number[]) => seconds.map((second) => ({ file: `t${second}.test.ts`, seconds: second }));
    writeFileSync(
      totals,
      [
        {
          passed: 10,
          failed: 1,
          skipped: 2,
          failures: ["api a.test.ts > breaks"],
          slowest: slowest([1, 3, 5, 7, 9, 11]),
        },
        { passed: 4, failed: 0, skipped: 0, failures: [] },
        { passed: 20, failed: 0, skipped: 0, failures: [], slowest: slowest([2, 4, 6, 8, 10, 12]) },
      ]
        .map((run) => JSON.stringify(run))
        .join("\n"),
    );
    const run = spawnSync(process.execPath, [sumTestTotals, totals, "4"], { encoding: "utf8" });
    const lines = run.stdout.trim().split("\n");
    expect(lines.at(-1)).toBe("34 passed, 2 failed");
    expect(run.stdout).toContain("Failed:\n  run 1: api a.test.ts > breaks\n");
    const named = lines.filter((line) => line.endsWith(".test.ts") && line.includes(" s  run "));
    expect(named.map((line) => line.trim())).toEqual(
      [12, 11, 10, 9, 8, 7, 6, 5, 4, 3].map(
        (second) => `${second.toFixed(1)} s  run ${second % 2 === 0 ? 3 : 1}: t${second}.test.ts`,
      ),
    );
  });
});
