import type { Measurement } from "./load.ts";
import type { TargetName } from "./protocol.ts";

/** One measured run of one target in one round. */
export interface Run {
  target: TargetName;
  round: number;
  measurement: Measurement;
  /** Requests and statements the child counted over the measured window. */
  requests: number;
  queries: number;
  windowRows: number | null;
  /** Requests per second against the bare route of the same round. */
  ratioToBare: number;
  /** CPU of the target's server process in the window. */
  serverCpuMs: number;
  /** CPU of the PostgreSQL processes in the window, for the postgres target. */
  postgresCpuMs: number | null;
  /** Cores busy with anything else (other processes on a shared machine); `null` without `/proc`. */
  otherCores: number | null;
}

/** The goals of docs/performance.md, and what they are as ratios to Express 5 (6,000 req/s where they were set). */
const goals = {
  maxRoundTrips: 2,
  postgres: 900,
  embedded: 600,
  expressReference: 6_000,
  maxTailRatio: 2,
} as const;

export const targetLabels: Record<TargetName, string> = {
  bare: "bare Express 5 route",
  embedded: "/me on PGlite (embedded)",
  postgres: "/me on PostgreSQL",
};

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
  "window rows",
];

/** The table of every run, then one line per target over its rounds. */
export function runTable(runs: Run[]): string {
  const rows = runs.map((run) => [
    targetLabels[run.target],
    String(run.round),
    ...figures(run.measurement.requestsPerSecond, run.measurement.p50Ms, run.measurement.p99Ms),
    String(run.measurement.non2xx + run.measurement.errors),
    run.target === "bare" ? "-" : queriesPerRequest(run.queries, run.requests),
    run.ratioToBare.toFixed(3),
    perRequest(run.serverCpuMs, run.requests),
    run.postgresCpuMs === null ? "-" : perRequest(run.postgresCpuMs, run.requests),
    run.otherCores === null ? "-" : run.otherCores.toFixed(2),
    run.windowRows === null ? "-" : run.windowRows.toLocaleString("en-US"),
  ]);
  const summary = summarise(runs).map((s) => [
    targetLabels[s.target],
    "mean",
    ...figures(s.requestsPerSecond, s.p50Ms, s.p99Ms),
    String(s.failures),
    s.target === "bare" ? "-" : queriesPerRequest(s.queries, s.requests),
    s.ratioToBare.toFixed(3),
    perRequest(s.serverCpuMs, s.requests),
    s.postgresCpuMs === null ? "-" : perRequest(s.postgresCpuMs, s.requests),
    s.otherCores === null ? "-" : s.otherCores.toFixed(2),
    "",
  ]);
  return table([columns, ...rows, [], ...summary]);
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
      postgresCpuMs: target === "postgres" ? sum(mine.map((run) => run.postgresCpuMs ?? 0)) : null,
      otherCores: mine.some((run) => run.otherCores === null) ? null : mean(mine.map((run) => run.otherCores ?? 0)),
    };
  });
}

/** The goals of docs/performance.md against the means, each line saying met or missed. */
export function goalLines(summaries: Summary[]): string[] {
  const lines: string[] = [];
  for (const s of summaries) {
    if (s.target === "bare") continue;
    const label = targetLabels[s.target];
    const trips = s.queries / s.requests;
    lines.push(
      verdict(
        trips <= goals.maxRoundTrips,
        `${label}: ${trips.toFixed(2)} database round trips per request (goal <= ${goals.maxRoundTrips})`,
      ),
    );
    const floor = s.target === "postgres" ? goals.postgres : goals.embedded;
    const floorRatio = floor / goals.expressReference;
    lines.push(
      verdict(
        s.requestsPerSecond >= floor,
        `${label}: ${round(s.requestsPerSecond)} req/s (goal >= ${floor} req/s on the pinned setup of performance.md)`,
      ),
    );
    lines.push(
      verdict(
        s.ratioToBare >= floorRatio,
        `${label}: ${s.ratioToBare.toFixed(3)} x bare Express (the goal as a ratio: ${floor}/${goals.expressReference} = ${floorRatio.toFixed(3)})`,
      ),
    );
    lines.push(
      verdict(
        s.p99Ms <= goals.maxTailRatio * s.p50Ms,
        `${label}: p99 ${s.p99Ms.toFixed(2)} ms = ${(s.p99Ms / s.p50Ms).toFixed(2)} x p50 ${s.p50Ms.toFixed(2)} ms (goal <= ${goals.maxTailRatio}x)`,
      ),
    );
  }
  return lines;
}

function verdict(met: boolean, text: string): string {
  return `${met ? "met   " : "MISSED"}  ${text}`;
}

function figures(rate: number, p50: number, p99: number): string[] {
  return [round(rate), p50.toFixed(2), p99.toFixed(2), (p99 / p50).toFixed(2)];
}

function perRequest(ms: number, requests: number): string {
  return requests === 0 ? "-" : (ms / requests).toFixed(2);
}

function queriesPerRequest(queries: number, requests: number): string {
  return requests === 0 ? "-" : (queries / requests).toFixed(2);
}

function round(value: number): string {
  return value.toLocaleString("en-US", { maximumFractionDigits: 0 });
}

function mean(values: number[]): number {
  return values.length === 0 ? Number.NaN : sum(values) / values.length;
}

function sum(values: number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

/** A plain-text table: the first column left-aligned, the rest right-aligned; an empty row is a rule. */
function table(rows: string[][]): string {
  const widths = columns.map((_, i) => Math.max(...rows.map((row) => (row[i] ?? "").length)));
  const rule = widths.map((w) => "-".repeat(w)).join("-+-");
  const lines = rows.map((row) =>
    row.length === 0
      ? rule
      : widths.map((w, i) => (i === 0 ? (row[i] ?? "").padEnd(w) : (row[i] ?? "").padStart(w))).join(" | "),
  );
  return [lines[0], rule, ...lines.slice(1)].join("\n");
}
