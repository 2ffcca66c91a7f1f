import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { expectedSkips, isExpectedSkip } from "../expected-skips.mjs";

const suites = new URL("./broken-suites/", import.meta.url).pathname;
const skippingSuites = new URL("./skipping-suites/", import.meta.url).pathname;
const repositoryRoot = new URL("../../", import.meta.url);
const vitest = new URL("../../node_modules/.bin/vitest", import.meta.url).pathname;
const sumTestTotals = new URL("../sum-test-totals.mjs", import.meta.url).pathname;

function scratchFile(): string {
  return join(mkdtempSync(join(tmpdir(), "verbatim-reporter-")), "totals");
}

describe("the plain summary line", () => {
  it("counts suites that break outside their tests as failed, and names every failure and the slowest files", () => {
    const totals = scratchFile();
    // Under CI too: the tests a broken suite leaves skipped are named by its one failure, not again as skips.
    const run = spawnSync(vitest, ["run", "--root", suites], {
      encoding: "utf8",
      env: { ...process.env, CI: "true", VERBATIM_TEST_TOTALS: totals, NO_COLOR: "1" },
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

describe("skipped tests", () => {
  const runSkippingSuites = (ci: Record<string, string>) => {
    const totals = scratchFile();
    const { CI: _inherited, ...environment } = process.env;
    const run = spawnSync(vitest, ["run", "--root", skippingSuites], {
      encoding: "utf8",
      env: { ...environment, ...ci, VERBATIM_TEST_TOTALS: totals, NO_COLOR: "1" },
    });
    return { run, lastLine: run.stdout.trim().split("\n").at(-1), recorded: JSON.parse(readFileSync(totals, "utf8")) };
  };

  it("count as skipped outside CI, and the run passes", () => {
    const { run, lastLine, recorded } = runSkippingSuites({});
    expect(lastLine, run.stdout + run.stderr).toBe("1 passed, 0 failed, 2 skipped");
    expect(run.status).toBe(0);
    expect(recorded).toMatchObject({ passed: 1, failed: 0, skipped: 2, failures: [] });
  });

  it("fail a CI run, each named with its note, when scripts/expected-skips.mjs does not list them", () => {
    const { run, lastLine, recorded } = runSkippingSuites({ CI: "true" });
    expect(lastLine, run.stdout + run.stderr).toBe("1 passed, 2 failed, 0 skipped");
    expect(run.status).not.toBe(0);
    const failures = [
      "skipping.fixture.ts > a suite that skips > is skipped when it is collected (skipped, which CI does not expect)",
      "skipping.fixture.ts > a suite that skips > skips itself once it finds nothing to test (skipped, which CI does not expect: the page under test is missing)",
    ];
    expect(recorded).toMatchObject({ passed: 1, failed: 2, skipped: 0, failures });
    expect(run.stdout).toContain(`Failed:\n${failures.map((failure) => `  ${failure}\n`).join("")}`);
  });

  it("are expected by file, full name and engine", () => {
    const cluster = "apps/api/test/cluster/cluster.test.ts";
    const clusterTest =
      "a cluster of 2 API and 2 worker processes on PostgreSQL > under load, through killed and stopped processes";
    expect(isExpectedSkip(cluster, clusterTest, "embedded")).toBe(true);
    expect(isExpectedSkip(cluster, clusterTest, "postgres")).toBe(false);
    expect(isExpectedSkip("apps/api/test/health.test.ts", clusterTest, "embedded")).toBe(false);
  });

  it("are expected of files that exist, by suite or test names the files hold, each with why", () => {
    for (const skip of expectedSkips) {
      const path = new URL(skip.file, repositoryRoot);
      expect(existsSync(path), skip.file).toBe(true);
      const source = readFileSync(path, "utf8");
      // The outermost suite's name, as its source spells it: a name that ends with the engine builds it at run time.
      const outermost = (skip.test.split(" > ")[0] as string).replace(/ \((embedded|postgres)\)$/, "");
      expect(source.includes(outermost), `${skip.file}: ${outermost}`).toBe(true);
      expect(skip.engines.length, skip.file).toBeGreaterThan(0);
      expect(skip.why.length, skip.file).toBeGreaterThan(0);
    }
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
    expect(lines.at(-1)).toBe("34 passed, 2 failed, 2 skipped");
    expect(run.status).toBe(1);
    expect(run.stdout).toContain("Failed:\n  run 1: api a.test.ts > breaks\n");
    const named = lines.filter((line) => line.endsWith(".test.ts") && line.includes(" s  run "));
    expect(named.map((line) => line.trim())).toEqual(
      [12, 11, 10, 9, 8, 7, 6, 5, 4, 3].map(
        (second) => `${second.toFixed(1)} s  run ${second % 2 === 0 ? 3 : 1}: t${second}.test.ts`,
      ),
    );
  });

  it("exits 0 when every run passed, whatever they skipped", () => {
    const totals = scratchFile();
    writeFileSync(
      totals,
      [
        { passed: 3, failed: 0, skipped: 1, failures: [] },
        { passed: 2, failed: 0, skipped: 0, failures: [] },
      ]
        .map((run) => JSON.stringify(run))
        .join("\n"),
    );
    const run = spawnSync(process.execPath, [sumTestTotals, totals, "2"], { encoding: "utf8" });
    expect(run.stdout.trim().split("\n").at(-1)).toBe("5 passed, 0 failed, 1 skipped");
    expect(run.status).toBe(0);
  });
});
