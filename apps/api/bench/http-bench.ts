// What the HTTP benchmarks (bench/run.ts for /me, bench/youtube.ts for transcripts) share: their
// settings, the PostgreSQL target's database, target processes, the interleaved measured rounds,
// and clean-up on exit.
import { availableParallelism, cpus } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { buildCompiledApi, type CompiledApi, type CompiledTargetOptions, startCompiledApi } from "./compiled-api.ts";
import { load } from "./load.ts";
import { cpuSnapshot, machineTicks } from "./machine.ts";
import { type BenchDatabase, benchServerUrl, createBenchDatabase, serverSettings } from "./postgres.ts";
import { runsOnPostgres, type TargetName } from "./protocol.ts";
import { type Run, type TargetLabels, wholeNumber } from "./report.ts";
import { type NamedSpec, TargetProcess } from "./target-process.ts";

export const measureSeconds = positiveNumber("VERBATIM_BENCH_SECONDS", 10);
export const warmupSeconds = positiveNumber("VERBATIM_BENCH_WARMUP_SECONDS", 2);
export const connections = positiveNumber("VERBATIM_BENCH_CONNECTIONS", 50);
/** Two interleaved rounds while they fit in about 100 s of load, else one. */
export const rounds = positiveNumber("VERBATIM_BENCH_ROUNDS", 3 * 2 * (warmupSeconds + measureSeconds) <= 100 ? 2 : 1);
/** Lets in-flight requests of a finished load finish before counters are read or reset. */
const settleMs = 300;

/** The settings above as one line, with the variables that change them. */
export const settingsLine =
  `${connections} connections, ${warmupSeconds} s warm-up + ${measureSeconds} s measured per run, ${rounds} interleaved round(s). ` +
  "Set VERBATIM_BENCH_SECONDS, VERBATIM_BENCH_WARMUP_SECONDS, VERBATIM_BENCH_CONNECTIONS, VERBATIM_BENCH_ROUNDS to change.";

/** A started target: its process, its loopback URL and its accounts' keys (none for the bare route). */
export interface Started {
  process: TargetProcess;
  url: string;
  apiKeys: string[];
}

export interface MeasureOptions {
  /** The targets of each round, in order; the bare route first, so the others have its rate to compare with. */
  order: TargetName[];
  /** The request every run sends; a POST sends `body` as JSON. */
  path: string;
  method?: "GET" | "POST";
  body?: string;
  /** The keys the bare route is sent, so the bytes on the wire match the metered targets'. */
  referenceKeys: string[];
  /** A fake upstream whose requests each run counts over its warm-up and measured load. */
  upstream?: { name: string; requests(): number };
  /** What each run's line calls its target, where it is not the benchmark's label (another operation on it). */
  labels?: Partial<TargetLabels>;
}

export interface HttpBenchOptions {
  /** The child entry serving every target of this benchmark, from a spec (bench/target-process.ts). */
  server: URL;
  /** What the tables call the operation on each engine; the bare route is the bare Express 5 route in each. */
  labels: Omit<TargetLabels, "bare" | "durable">;
}

/** One HTTP benchmark's targets, database and clean-up. */
export class HttpBench<Spec extends NamedSpec> {
  readonly cores = availableParallelism();
  readonly labels: TargetLabels;
  private readonly server: URL;
  private readonly targets = new Map<TargetName, Started>();
  private readonly closers: (() => Promise<void>)[] = [];
  private database: BenchDatabase | null = null;
  private compiled: CompiledApi | null = null;

  constructor(options: HttpBenchOptions) {
    this.server = options.server;
    this.labels = {
      bare: "bare Express 5 route",
      durable: "bare Express 5 route + durable charge, PostgreSQL",
      ...options.labels,
    };
  }

  /** The benchmark's title, then Node, the machine, and what shares its cores (nothing is pinned). */
  printHeader(title: string, sharing: string): void {
    console.log(`Verbatim benchmark: ${title}`);
    console.log(
      `Node ${process.version} on ${this.cores} cores (${cpus()[0]?.model.trim() ?? "unknown CPU"}). Nothing is pinned: ${sharing}`,
    );
  }

  /** Says how busy other processes keep the machine, over one second before anything starts. */
  async printForeignLoad(): Promise<void> {
    const foreign = await foreignLoad();
    if (foreign === null) return;
    console.log(
      `Before starting, other processes kept ${foreign.toFixed(2)} of ${this.cores} cores busy` +
        (foreign > 0.2 ? ": the machine is shared, figures will be depressed (see the other cores column)." : "."),
    );
  }

  /** A fresh database for the postgres target, dropped at the end; `null` (and why) when PostgreSQL is unreachable. */
  async openDatabase(): Promise<BenchDatabase | null> {
    const serverUrl = benchServerUrl();
    const created = await createBenchDatabase(serverUrl);
    if ("unreachable" in created) {
      console.log(
        `PostgreSQL at ${redact(serverUrl)} is unreachable (${created.unreachable}); skipping the postgres target.`,
      );
      return null;
    }
    this.database = created;
    console.log(`${await serverSettings(created.url)}; fresh database ${redact(created.url)}, dropped at the end.`);
    return created;
  }

  /** Starts the named targets side by side from their specs; throws the first failure once the others have started. */
  async start(names: TargetName[], spec: (name: TargetName) => Spec): Promise<void> {
    const started = await Promise.allSettled(names.map((name) => TargetProcess.start(this.server, spec(name))));
    let failure: unknown = null;
    started.forEach((result, i) => {
      const name = names[i];
      if (!name) return;
      if (result.status === "fulfilled") this.targets.set(name, { process: result.value.target, ...result.value });
      else failure ??= result.reason;
    });
    if (failure) throw failure;
  }

  /**
   * Starts the named targets as a deployment runs the API: `node dist/main.js`, built once per
   * benchmark (bench/compiled-api.ts), on the store each spec names.
   */
  async startCompiled(
    names: TargetName[],
    spec: (name: TargetName) => Spec & { name: TargetName; databaseUrl?: string },
    options: CompiledTargetOptions,
  ): Promise<void> {
    this.compiled ??= await buildCompiledApi();
    for (const name of names) {
      const started = await startCompiledApi(this.compiled, spec(name), options);
      this.onCleanUp(async () => started.removeDataDir());
      this.targets.set(name, { process: started.target, url: started.url, apiKeys: started.apiKeys });
    }
  }

  /** A started target; throws when it did not start. */
  target(name: TargetName): Started {
    const target = this.targets.get(name);
    if (!target) throw new Error(`the ${name} target did not start`);
    return target;
  }

  /** Closes `close` at the end, after the targets and before the database is dropped. */
  onCleanUp(close: () => Promise<void>): void {
    this.closers.push(close);
  }

  /** Warms up and measures each target in turn, round after round, printing a line per run. */
  async measure(options: MeasureOptions): Promise<Run[]> {
    const labels = { ...this.labels, ...options.labels };
    const labelWidth = Math.max(...Object.values(labels).map((label) => label.length)) + 1;
    const runs: Run[] = [];
    for (let round = 1; round <= rounds; round += 1) {
      let bareRate = Number.NaN;
      for (const name of options.order) {
        const target = this.targets.get(name);
        if (!target) continue;
        const request = {
          url: `${target.url}${options.path}`,
          method: options.method ?? "GET",
          ...(options.body === undefined ? {} : { body: options.body }),
          apiKeys: target.apiKeys.length > 0 ? target.apiKeys : options.referenceKeys,
          connections,
        };
        const upstreamBefore = options.upstream?.requests() ?? 0;
        await load({ ...request, seconds: warmupSeconds });
        await sleep(settleMs);
        const pids = [...this.targets.values()].flatMap((t) => (t.process.pid === undefined ? [] : [t.process.pid]));
        const before = cpuSnapshot(pids);
        await target.process.countStart();
        const measurement = await load({ ...request, seconds: measureSeconds });
        await sleep(settleMs);
        const counted = await target.process.countStop();
        const after = cpuSnapshot(pids);
        if (name === "bare") bareRate = measurement.requestsPerSecond;
        const wallMs = after.wallMs - before.wallMs;
        // PostgreSQL's CPU belongs to the postgres target; during the others it is someone else's load.
        const postgresMs = after.postgresMs - before.postgresMs;
        const ownPostgresMs = runsOnPostgres(name) ? postgresMs : 0;
        const busyMs = after.machine && before.machine ? after.machine.busyMs - before.machine.busyMs : null;
        const run: Run = {
          target: name,
          round,
          measurement,
          requests: counted.requests,
          queries: counted.queries,
          windowRows: counted.windowRows,
          upstreamRequests: options.upstream ? options.upstream.requests() - upstreamBefore : null,
          ratioToBare: measurement.requestsPerSecond / bareRate,
          serverCpuMs: counted.cpuMs,
          postgresCpuMs: runsOnPostgres(name) ? postgresMs : null,
          otherCores:
            busyMs === null ? null : Math.max(0, busyMs - (after.benchMs - before.benchMs) - ownPostgresMs) / wallMs,
        };
        runs.push(run);
        console.log(
          `  round ${round} ${labels[name].padEnd(labelWidth)} ${wholeNumber(measurement.requestsPerSecond).padStart(6)} req/s, ` +
            `p50 ${measurement.p50Ms.toFixed(2)} ms, p99 ${measurement.p99Ms.toFixed(2)} ms, non-2xx ${measurement.non2xx}, errors ${measurement.errors}` +
            (measurement.non2xx > 0 ? `, status codes ${JSON.stringify(measurement.statusCodes)}` : "") +
            (options.upstream
              ? `; ${options.upstream.name} requests during warm-up + measured load: ${run.upstreamRequests}`
              : "") +
            `; CPU in cores: load generator ${((after.ownMs - before.ownMs) / wallMs).toFixed(2)}, server ${(counted.cpuMs / wallMs).toFixed(2)}` +
            (runsOnPostgres(name) ? `, postgres ${(postgresMs / wallMs).toFixed(2)}` : "") +
            (run.otherCores === null ? "" : `, other processes ${run.otherCores.toFixed(2)}`),
        );
      }
    }
    return runs;
  }

  /** Runs `main`, cleans up (on Ctrl-C too) and exits with `main`'s code, 1 when it throws. */
  async run(main: () => Promise<number>): Promise<never> {
    process.once("SIGINT", () => {
      void this.cleanUp().finally(() => process.exit(130));
    });
    let exitCode: number;
    try {
      exitCode = await main();
    } catch (error) {
      console.error(`\nBenchmark failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      exitCode = 1;
    }
    await this.cleanUp();
    process.exit(exitCode);
  }

  private async cleanUp(): Promise<void> {
    await Promise.allSettled([...this.targets.values()].map((target) => target.process.close()));
    this.targets.clear();
    for (const close of this.closers.splice(0)) await close();
    const dropping = this.database;
    this.database = null;
    await dropping
      ?.drop()
      .catch((error: unknown) => console.error(`Could not drop the bench database: ${String(error)}`));
  }
}

/** Says on stderr when runs had non-2xx responses or connection errors; true when any did. */
export function reportFailedRuns(runs: Run[]): boolean {
  const failed = runs.filter((run) => run.measurement.non2xx > 0 || run.measurement.errors > 0);
  if (failed.length === 0) return false;
  console.error(
    `\nThe measurement is not valid: ${failed.length} run(s) had non-2xx responses or connection errors (see above).`,
  );
  return true;
}

/** Cores kept busy by other processes over one second, before the bench starts anything. */
async function foreignLoad(): Promise<number | null> {
  const before = machineTicks();
  const ownBefore = process.cpuUsage();
  await sleep(1_000);
  const after = machineTicks();
  if (!before || !after) return null;
  const own = process.cpuUsage(ownBefore);
  return Math.max(0, after.busyMs - before.busyMs - (own.user + own.system) / 1000) / 1_000;
}

export function positiveNumber(name: string, fallback: number): number {
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
