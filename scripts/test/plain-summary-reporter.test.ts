import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const suites = new URL("./broken-suites/", import.meta.url).pathname;
const vitest = new URL("../../node_modules/.bin/vitest", import.meta.url).pathname;

describe("the plain summary line", () => {
  it("counts suites that break outside their tests as failed", () => {
    const totals = join(mkdtempSync(join(tmpdir(), "verbatim-reporter-")), "totals");
    const run = spawnSync(vitest, ["run", "--root", suites], {
      encoding: "utf8",
      env: { ...process.env, VERBATIM_TEST_TOTALS: totals, NO_COLOR: "1" },
    });
    const lastLine = run.stdout.trim().split("\n").at(-1);
    // passing, and the test beside the inner suite pass; each hook failure, the failed import and the leak fail once.
    expect(lastLine, run.stdout + run.stderr).toBe("3 passed, 4 failed, 2 skipped");
    expect(run.status).not.toBe(0);
    expect(JSON.parse(readFileSync(totals, "utf8"))).toEqual({ passed: 3, failed: 4, skipped: 2 });
  });
});
