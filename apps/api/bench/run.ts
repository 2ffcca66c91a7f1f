// `pnpm bench`: requests per second and p50/p99 latency of GET /api/v2/me (authentication,
// allowance, usage) of the compiled API process (`node dist/main.js`) on PGlite and on PostgreSQL,
// beside a bare Express route, from one run.
import { benchAccounts, unlimitedAllowances } from "./bench-accounts.ts";
import { HttpBench, reportFailedRuns, settingsLine } from "./http-bench.ts";
import type { TargetName, TargetSpec } from "./protocol.ts";
import { printReport, windowRowsColumn } from "./report.ts";

const bench = new HttpBench<TargetSpec>({
  server: new URL("./target-server.ts", import.meta.url),
  labels: { embedded: "/me on PGlite (embedded)", postgres: "/me on PostgreSQL" },
});

async function main(): Promise<number> {
  bench.printHeader(
    "GET /api/v2/me",
    `the load generator (this process), each target server (a child process) and PostgreSQL share all ${bench.cores} ` +
      "cores, so absolute figures sit below the pinned setup of docs/performance.md; compare the ratios.",
  );
  console.log(settingsLine);
  await bench.printForeignLoad();
  const database = await bench.openDatabase();

  console.log("Starting target servers...");
  const metered: TargetName[] = database ? ["embedded", "postgres"] : ["embedded"];
  await bench.startCompiled(
    metered,
    (name) => ({ name, ...(name === "postgres" && database ? { databaseUrl: database.url } : {}) }),
    { accounts: benchAccounts, planSetting: unlimitedAllowances },
  );
  const reference = bench.target("embedded");
  const body = await captureMe(reference.url, reference.apiKeys[0] ?? null);
  await bench.start(["bare"], (name) => ({ name, body }));

  const runs = await bench.measure({
    order: ["bare", ...metered],
    path: "/api/v2/me",
    referenceKeys: reference.apiKeys,
  });
  printReport(runs, bench.labels, {
    last: windowRowsColumn,
    notes: [
      "queries/req: statements sent to the database driver in the measured window / requests the server received in it.",
      "window rows: admitted requests the sliding windows still count after the run (never more than the limit per window).",
    ],
    heading: "Goals (docs/performance.md), on the means:",
    goals: {
      minRatioToBare: { postgres: 0.25, embedded: 0.12 },
      maxServerCpuMs: 0.35,
      maxPostgresCpuMs: 0.25,
      maxRoundTrips: 2,
      maxTailRatio: 2,
    },
  });
  return reportFailedRuns(runs) ? 1 : 0;
}

async function captureMe(url: string, apiKey: string | null): Promise<unknown> {
  const response = await fetch(`${url}/api/v2/me`, { headers: { authorization: `Bearer ${apiKey}` } });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`GET /api/v2/me answered ${response.status}: ${text}`);
  return JSON.parse(text);
}

await bench.run(main);
