// `pnpm bench`: requests per second and p50/p99 latency of GET /api/v2/me (authentication,
// allowance, usage) on PGlite and on PostgreSQL, beside a bare Express route, from one run.
import { availableParallelism, cpus } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { load } from "./load.ts";
import { cpuSnapshot, machineTicks } from "./machine.ts";
import { type BenchDatabase, benchServerUrl, createBenchDatabase, serverSettings } from "./postgres.ts";
import type { TargetName } from "./protocol.ts";
import { goalLines, type Run, runTable, summarise, targetLabels } from "./report.ts";
import { TargetProcess } from "./target-process.ts";

const measureSeconds = positiveNumber("VERBATIM_BENCH_SECONDS", 10);
const warmupSeconds = positiveNumber("VERBATIM_BENCH_WARMUP_SECONDS", 2);
const connections = positiveNumber("VERBATIM_BENCH_CONNECTIONS", 50);
/** Two interleaved rounds while they fit in about 100 s of load, else one. */
const rounds = positiveNumber("VERBATIM_BENCH_ROUNDS", 3 * 2 * (warmupSeconds + measureSeconds) <= 100 ? 2 : 1);
/** Lets in-flight requests of a finished load finish before counters are read or reset. */
const settleMs = 300;

const targets = new Map<TargetName, { process: TargetProcess; url: string; apiKeys: string[] }>();
let database: BenchDatabase | null = null;

async function main(): Promise<number> {
  const cores = availableParallelism();
  console.log("Verbatim benchmark: GET /api/v2/me");
  console.log(
    `Node ${process.version} on ${cores} cores (${cpus()[0]?.model.trim() ?? "unknown CPU"}). Nothing is pinned: the load generator (this process), ` +
      `each target server (a child process) and PostgreSQL share all ${cores} cores, so absolute figures sit below ` +
      "the pinned setup of docs/performance.md; compare the ratios.",
  );
  console.log(
    `${connections} connections, ${warmupSeconds} s warm-up + ${measureSeconds} s measured per run, ${rounds} interleaved round(s). ` +
      "Set VERBATIM_BENCH_SECONDS, VERBATIM_BENCH_WARMUP_SECONDS, VERBATIM_BENCH_ROUNDS to change.",
  );

  const foreign = await foreignLoad();
  if (foreign !== null) {
    console.log(
      `Before starting, other processes kept ${foreign.toFixed(2)} of ${cores} cores busy` +
        (foreign > 0.2 ? ": the machine is shared, figures will be depressed (see the other cores column)." : "."),
    );
  }

  const serverUrl = benchServerUrl();
  const created = await createBenchDatabase(serverUrl);
  if ("unreachable" in created) {
    console.log(
      `PostgreSQL at ${redact(serverUrl)} is unreachable (${created.unreachable}); skipping the postgres target.`,
    );
  } else {
    database = created;
    console.log(`${await serverSettings(created.url)}; fresh database ${redact(created.url)}, dropped at the end.`);
  }

  console.log("Starting target servers...");
  const metered: TargetName[] = database ? ["embedded", "postgres"] : ["embedded"];
  const started = await Promise.allSettled(
    metered.map((name) =>
      TargetProcess.start({ name, ...(name === "postgres" && database ? { databaseUrl: database.url } : {}) }),
    ),
  );
  let failure: unknown = null;
  started.forEach((result, i) => {
    const name = metered[i];
    if (!name) return;
    if (result.status === "fulfilled") targets.set(name, { process: result.value.target, ...result.value });
    else failure ??= result.reason;
  });
  if (failure) throw failure;

  const reference = targets.get("embedded");
  if (!reference) throw new Error("the embedded target did not start");
  const body = await captureMe(reference.url, reference.apiKeys[0] ?? null);
  const bare = await TargetProcess.start({ name: "bare", body });
  targets.set("bare", { process: bare.target, url: bare.url, apiKeys: bare.apiKeys });

  const order: TargetName[] = ["bare", ...metered];
  const runs: Run[] = [];
  for (let round = 1; round <= rounds; round += 1) {
    let bareRate = Number.NaN;
    for (const name of order) {
      const target = targets.get(name);
      if (!target) continue;
      // The bare route gets the same request, a key included, so the bytes on the wire match.
      const options = {
        url: `${target.url}/api/v2/me`,
        apiKeys: target.apiKeys.length > 0 ? target.apiKeys : reference.apiKeys,
        connections,
      };
      await load({ ...options, seconds: warmupSeconds });
      await sleep(settleMs);
      const pids = [...targets.values()].flatMap((t) => (t.process.pid === undefined ? [] : [t.process.pid]));
      const before = cpuSnapshot(pids);
      await target.process.countStart();
      const measurement = await load({ ...options, seconds: measureSeconds });
      await sleep(settleMs);
      const counted = await target.process.countStop();
      const after = cpuSnapshot(pids);
      if (name === "bare") bareRate = measurement.requestsPerSecond;
      const wallMs = after.wallMs - before.wallMs;
      const loadGeneratorMs = after.ownMs - before.ownMs;
      // PostgreSQL's CPU belongs to the postgres target; during the others it is someone else's load.
      const postgresMs = after.postgresMs - before.postgresMs;
      const ownPostgresMs = name === "postgres" ? postgresMs : 0;
      const busyMs = after.machine && before.machine ? after.machine.busyMs - before.machine.busyMs : null;
      const run: Run = {
        target: name,
        round,
        measurement,
        requests: counted.requests,
        queries: counted.queries,
        windowRows: counted.windowRows,
        ratioToBare: measurement.requestsPerSecond / bareRate,
        serverCpuMs: counted.cpuMs,
        postgresCpuMs: name === "postgres" ? postgresMs : null,
        otherCores:
          busyMs === null ? null : Math.max(0, busyMs - (after.benchMs - before.benchMs) - ownPostgresMs) / wallMs,
      };
      runs.push(run);
      console.log(
        `  round ${round} ${targetLabels[name].padEnd(25)} ${Math.round(measurement.requestsPerSecond).toString().padStart(6)} req/s, ` +
          `p50 ${measurement.p50Ms.toFixed(2)} ms, p99 ${measurement.p99Ms.toFixed(2)} ms, non-2xx ${measurement.non2xx}, errors ${measurement.errors}` +
          (measurement.non2xx > 0 ? `, status codes ${JSON.stringify(measurement.statusCodes)}` : "") +
          `; CPU in cores: load generator ${(loadGeneratorMs / wallMs).toFixed(2)}, server ${(counted.cpuMs / wallMs).toFixed(2)}` +
          (name === "postgres" ? `, postgres ${(postgresMs / wallMs).toFixed(2)}` : "") +
          (run.otherCores === null ? "" : `, other processes ${run.otherCores.toFixed(2)}`),
      );
    }
  }

  console.log("");
  console.log(runTable(runs));
  console.log("");
  console.log(
    "queries/req: statements sent to the database driver in the measured window / requests the server received in it.",
  );
  console.log(
    "window rows: admitted requests held by the sliding windows after the run (never more than the limit per window).",
  );
  console.log(
    "srv/pg CPU ms/req: CPU of the server process / of all postgres processes in the window, per request. other cores: " +
      "CPU of everything else on the machine (not the load generator, the bench's server processes, or the postgres target's PostgreSQL); above ~0.1 the figures are depressed by foreign load.",
  );
  console.log("");
  console.log("Goals (docs/performance.md), on the means:");
  for (const line of goalLines(summarise(runs))) console.log(`  ${line}`);

  const failed = runs.filter((run) => run.measurement.non2xx > 0 || run.measurement.errors > 0);
  if (failed.length > 0) {
    console.error(
      `\nThe measurement is not valid: ${failed.length} run(s) had non-2xx responses or connection errors (see above).`,
    );
    return 1;
  }
  return 0;
}

/** Cores kept busy by other processes over one second, before the bench starts anything. */
async function foreignLoad(): Promise<number | null> {
  const before = machineTicks();
  const ownBefore = process.cpuUsage();
  await sleep(1_000);
  const after = machineTicks();
  if (!before || !after) return null;
  const own = process.cpuUsage(ownBefore);
  const busyMs = after.busyMs - before.busyMs - (own.user + own.system) / 1000;
  return Math.max(0, busyMs) / 1_000;
}

async function captureMe(url: string, apiKey: string | null): Promise<unknown> {
  const response = await fetch(`${url}/api/v2/me`, { headers: { authorization: `Bearer ${apiKey}` } });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`GET /api/v2/me answered ${response.status}: ${text}`);
  return JSON.parse(text);
}

async function cleanUp(): Promise<void> {
  await Promise.allSettled([...targets.values()].map((target) => target.process.close()));
  targets.clear();
  const dropping = database;
  database = null;
  await dropping
    ?.drop()
    .catch((error: unknown) => console.error(`Could not drop the bench database: ${String(error)}`));
}

function positiveNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, not ${raw}`);
  return value;
}

function redact(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = "***";
  return parsed.toString();
}

process.once("SIGINT", () => {
  void cleanUp().finally(() => process.exit(130));
});

let exitCode: number;
try {
  exitCode = await main();
} catch (error) {
  console.error(`\nBenchmark failed: ${error instanceof Error ? error.message : String(error)}`);
  exitCode = 1;
}
await cleanUp();
process.exit(exitCode);
