import type { Measurement } from "./load.ts";
import { runsOnPostgres, type TargetName } from "./protocol.ts";

/** One measured run of one target in one round. */
export interface Run {
  target: TargetName;
  round: number;
  measurement: Measurement;
  /** Requests and statements the child counted over the measured window. */
  requests: number;
  queries: number;
  /** Admitted requests the sliding windows hold afterwards; `null` where the child does not count them. */
  windowRows: number | null;
  /** Requests a fake upstream received during the run's warm-up and measured load; `null` without one. */
  upstreamRequests: number | null;
  /** Requests per second against the bare route of the same round. */
  ratioToBare: number;
  /** CPU of the target's server process in the window. */
  serverCpuMs: number;
  /** CPU of the PostgreSQL processes in the window, for the postgres target. */
  postgresCpuMs: number | null;
  /** Cores busy with anything else (other processes on a shared machine); `null` without `/proc`. */
  otherCores: number | null;
}

/** What each benchmark calls its targets in the tables and goal lines. */
export type TargetLabels = Record<TargetName, string>;

/** What a benchmark holds its metered targets to (docs/performance.md), each on the means of its rounds. */
export interface TargetGoals {
  /** The least share of the bare Express route's req/s in the same run, by engine. */
  minRatioToBare?: { embedded: number; postgres: number };
  /** The most CPU per request of the server process, and of PostgreSQL, in ms. */
  maxServerCpuMs?: number;
  maxPostgresCpuMs?: number;
  /** The most database round trips per request. */
  maxRoundTrips?: number;
  /** The most p99 may be, as a multiple of p50. */
  maxTailRatio: number;
}

const columns = [
  "target",
  "round",
  "req/s",
  "p50 ms",
  "p99 ms",
  "p99/p50",
  "non-2xx",
  "queries/req",
  "× bare",
  "srv CPU ms/req",
  "pg CPU ms/req",
  "other cores",
];

/** What the CPU columns of `runTable` mean, printed under it. */
const cpuNote =
  "srv/pg CPU ms/req: CPU of the server process / of all postgres processes in the window, per request. other cores: " +
  "CPU of everything else on the machine (not the load generator, the bench's server processes, or the postgres target's PostgreSQL); above ~0.1 the figures are depressed by foreign load.";

/** The column after the shared ones, which each benchmark chooses. */
export interface LastColumn {
  header: string;
  /** The cell of one run. */
  run(run: Run): string;
  /** The cell of a target's mean row, from that target's runs. */
  mean(runs: Run[]): string;
}

/** The last column of the /me benchmark: what the sliding windows hold after each run. */
export const windowRowsColumn: LastColumn = {
  header: "window rows",
  run: (run) => (run.windowRows === null ? "-" : run.windowRows.toLocaleString("en-US")),
  mean: () => "",
};

/** The last column of benchmarks with a fake upstream: the requests it received. */
export const upstreamColumn: LastColumn = {
  header: "upstream",
  run: (run) => String(run.upstreamRequests),
  mean: (runs) => String(sum(runs.map((run) => run.upstreamRequests ?? 0))),
};

/** The table of every run, then one line per target over its rounds. */
export function runTable(runs: Run[], labels: TargetLabels, last: LastColumn): string {
  const rows = runs.map((run) => [
    labels[run.target],
    String(run.round),
    ...figures(run.measurement.requestsPerSecond, run.measurement.p50Ms, run.measurement.p99Ms),
    String(run.measurement.non2xx + run.measurement.errors),
    run.target === "bare" ? "-" : perRequest(run.queries, run.requests),
    run.ratioToBare.toFixed(3),
    perRequest(run.serverCpuMs, run.requests),
    run.postgresCpuMs === null ? "-" : perRequest(run.postgresCpuMs, run.requests),
    run.otherCores === null ? "-" : run.otherCores.toFixed(2),
    last.run(run),
  ]);
  const summary = summarise(runs).map((s) => [
    labels[s.target],
    "mean",
    ...figures(s.requestsPerSecond, s.p50Ms, s.p99Ms),
    String(s.failures),
    s.target === "bare" ? "-" : perRequest(s.queries, s.requests),
    s.ratioToBare.toFixed(3),
    perRequest(s.serverCpuMs, s.requests),
    s.postgresCpuMs === null ? "-" : perRequest(s.postgresCpuMs, s.requests),
    s.otherCores === null ? "-" : s.otherCores.toFixed(2),
    last.mean(runs.filter((run) => run.target === s.target)),
  ]);
  return textTable([...columns, last.header], [...rows, [], ...summary]);
}

export interface ReportOptions {
  last: LastColumn;
  /** What the columns of this benchmark mean, printed under the table before the CPU columns' note. */
  notes: string[];
  /** The heading of the goal lines. */
  heading: string;
  goals: TargetGoals;
}

/** Prints the table of `runs` with its notes, then the goals against the means. */
export function printReport(runs: Run[], labels: TargetLabels, options: ReportOptions): void {
  console.log("");
  console.log(runTable(runs, labels, options.last));
  console.log("");
  for (const note of options.notes) console.log(note);
  console.log(cpuNote);
  console.log("");
  console.log(options.heading);
  for (const line of goalLines(summarise(runs), labels, options.goals)) console.log(`  ${line}`);
}

export interface Summary {
  target: TargetName;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  failures: number;
  requests: number;
  queries: number;
  ratioToBare: number;
  serverCpuMs: number;
  postgresCpuMs: number | null;
  otherCores: number | null;
}

/** Each target's mean over its rounds (statements per request over all of them). */
export function summarise(runs: Run[]): Summary[] {
  const targets = [...new Set(runs.map((run) => run.target))];
  const bareRate = mean(runs.filter((run) => run.target === "bare").map((run) => run.measurement.requestsPerSecond));
  return targets.map((target) => {
    const mine = runs.filter((run) => run.target === target);
    const requestsPerSecond = mean(mine.map((run) => run.measurement.requestsPerSecond));
    return {
      target,
      requestsPerSecond,
      p50Ms: mean(mine.map((run) => run.measurement.p50Ms)),
      p99Ms: mean(mine.map((run) => run.measurement.p99Ms)),
      failures: sum(mine.map((run) => run.measurement.non2xx + run.measurement.errors)),
      requests: sum(mine.map((run) => run.requests)),
      queries: sum(mine.map((run) => run.queries)),
      ratioToBare: requestsPerSecond / bareRate,
      serverCpuMs: sum(mine.map((run) => run.serverCpuMs)),
      postgresCpuMs: runsOnPostgres(target) ? sum(mine.map((run) => run.postgresCpuMs ?? 0)) : null,
      otherCores: mine.some((run) => run.otherCores === null) ? null : mean(mine.map((run) => run.otherCores ?? 0)),
    };
  });
}

/** Each metered target's goals against its means, each line saying met or missed. */
export function goalLines(summaries: Summary[], labels: TargetLabels, goals: TargetGoals): string[] {
  const lines: string[] = [];
  for (const s of summaries) {
    if (s.target === "bare" || s.target === "durable") continue;
    const label = labels[s.target];
    const engine = s.target === "postgres" ? "postgres" : "embedded";
    if (goals.maxRoundTrips !== undefined) {
      const trips = s.queries / s.requests;
      lines.push(
        verdict(
          trips <= goals.maxRoundTrips,
          `${label}: ${trips.toFixed(3)} database round trips per request (goal <= ${goals.maxRoundTrips})`,
        ),
      );
    }
    if (goals.minRatioToBare) {
      const least = goals.minRatioToBare[engine];
      lines.push(
        verdict(
          s.ratioToBare >= least,
          `${label}: ${wholeNumber(s.requestsPerSecond)} req/s = ${s.ratioToBare.toFixed(3)} x bare Express (goal >= ${least})`,
        ),
      );
    }
    if (goals.maxServerCpuMs !== undefined) {
      const cpu = s.serverCpuMs / s.requests;
      lines.push(
        verdict(
          cpu <= goals.maxServerCpuMs,
          `${label}: server CPU ${cpu.toFixed(2)} ms per request (goal <= ${goals.maxServerCpuMs})`,
        ),
      );
    }
    if (goals.maxPostgresCpuMs !== undefined && s.postgresCpuMs !== null) {
      const cpu = s.postgresCpuMs / s.requests;
      lines.push(
        verdict(
          cpu <= goals.maxPostgresCpuMs,
          `${label}: PostgreSQL CPU ${cpu.toFixed(2)} ms per request (goal <= ${goals.maxPostgresCpuMs})`,
        ),
      );
    }
    lines.push(
      verdict(
        s.p99Ms <= goals.maxTailRatio * s.p50Ms,
        `${label}: p99 ${s.p99Ms.toFixed(2)} ms = ${(s.p99Ms / s.p50Ms).toFixed(2)} x p50 ${s.p50Ms.toFixed(2)} ms (goal <= ${goals.maxTailRatio}x)`,
      ),
    );
  }
  return lines;
}

export function verdict(met: boolean, text: string): string {
  return `${met ? "met   " : "MISSED"}  ${text}`;
}

function figures(rate: number, p50: number, p99: number): string[] {
  return [wholeNumber(rate), p50.toFixed(2), p99.toFixed(2), (p99 / p50).toFixed(2)];
}

function perRequest(total: number, requests: number): string {
  return requests === 0 ? "-" : (total / requests).toFixed(2);
}

/** A whole number with thousands separators. */
export function wholeNumber(value: number): string {
  return value.toLocaleString("en-US", { maximumFractionDigits: 0 });
}

function mean(values: number[]): number {
  return values.length === 0 ? Number.NaN : sum(values) / values.length;
}

export function sum(values: number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

/**
 * A plain-text table: the first column left-aligned, the rest right-aligned, a rule under the
 * header; an empty row is a rule too.
 */
export function textTable(header: string[], rows: string[][]): string {
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((row) => (row[i] ?? "").length)));
  const rule = widths.map((w) => "-".repeat(w)).join("-+-");
  const lines = all.map((row) =>
    row.length === 0
      ? rule
      : widths.map((w, i) => (i === 0 ? (row[i] ?? "").padEnd(w) : (row[i] ?? "").padStart(w))).join(" | "),
  );
  return [lines[0], rule, ...lines.slice(1)].join("\n");
}
