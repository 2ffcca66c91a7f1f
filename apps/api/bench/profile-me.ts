// `tsx bench/profile-me.ts [embedded|postgres]`: runs `GET /api/v2/me` under load in the compiled API
// (`node dist/main.js`, bench/compiled-api.ts) started with `--cpu-prof`, then prints the self time of
// the measured load (not start-up or warm-up) by function and by module, each frame of dist/ named
// by its source through the build's source map: the tables docs/performance.md keeps under "/me profile".
import { readFileSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { SourceMap } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { benchAccounts, unlimitedAllowances } from "./bench-accounts.ts";
import { buildCompiledApi, startCompiledApi } from "./compiled-api.ts";
import { positiveNumber } from "./http-bench.ts";
import { load } from "./load.ts";
import { benchServerUrl, createBenchDatabase } from "./postgres.ts";
import { textTable } from "./report.ts";

const seconds = positiveNumber("VERBATIM_BENCH_SECONDS", 10);
const warmupSeconds = positiveNumber("VERBATIM_BENCH_WARMUP_SECONDS", 5);
const connections = positiveNumber("VERBATIM_BENCH_CONNECTIONS", 50);
const topRows = 14;

/** The parts of a V8 `.cpuprofile` the summary reads. */
interface CpuProfile {
  nodes: {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
    children?: number[];
  }[];
  /** Microseconds on the monotonic clock `process.hrtime` reads, in the child as here. */
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

async function main(): Promise<void> {
  const engine = process.argv[2] === "postgres" ? "postgres" : "embedded";
  const database = engine === "postgres" ? await createBenchDatabase(benchServerUrl()) : null;
  if (database && "unreachable" in database) throw new Error(`PostgreSQL is unreachable: ${database.unreachable}`);
  // VERBATIM_PROFILE_DIR keeps the `.cpuprofile` there, for DevTools or speedscope; else it is removed.
  const keptDir = process.env.VERBATIM_PROFILE_DIR;
  const profileDir = keptDir ?? (await mkdtemp(join(tmpdir(), "verbatim-me-profile-")));
  let removeDataDir = () => {};
  try {
    const started = await startCompiledApi(
      await buildCompiledApi(),
      { name: engine, ...(database ? { databaseUrl: database.url } : {}) },
      {
        accounts: benchAccounts,
        planSetting: unlimitedAllowances,
        nodeOptions: ["--cpu-prof", `--cpu-prof-dir=${profileDir}`],
      },
    );
    removeDataDir = started.removeDataDir;
    const { target, url, apiKeys } = started;
    const request = { url: `${url}/api/v2/me`, apiKeys, connections };
    const window = { fromUs: 0, toUs: 0 };
    const measured = await (async () => {
      // The first request compiles the validator's schemas; the warm-up keeps that out of the window.
      await fetch(request.url, { headers: { authorization: `Bearer ${apiKeys[0]}` } });
      await load({ ...request, seconds: warmupSeconds });
      window.fromUs = monotonicUs();
      const run = await load({ ...request, seconds });
      window.toUs = monotonicUs();
      return run;
    })().finally(() => target.close());
    console.log(
      `GET /api/v2/me on ${engine}: ${connections} connections, ${warmupSeconds} s warm-up, ${seconds} s profiled: ` +
        `${Math.round(measured.requestsPerSecond)} req/s, non-2xx ${measured.non2xx}, errors ${measured.errors}.`,
    );
    // The main thread's profile; PGlite's and pino's worker threads write their own.
    const [file] = (await readdir(profileDir))
      .filter((name) => /\.0\.\d+\.cpuprofile$/.test(name))
      .sort()
      .reverse();
    if (!file) throw new Error("the target server wrote no profile");
    summarise(JSON.parse(await readFile(join(profileDir, file), "utf8")) as CpuProfile, window);
  } finally {
    removeDataDir();
    if (!keptDir) await rm(profileDir, { recursive: true, force: true });
    if (database && "drop" in database) await database.drop();
  }
}

function monotonicUs(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

/**
 * Prints the top self times of the samples within `window` by function, and by module with the
 * time under each module's frames (its callees included), as shares.
 */
function summarise(profile: CpuProfile, window: { fromUs: number; toUs: number }): void {
  const frames = new Map(profile.nodes.map((node) => [node.id, sourceFrame(node.callFrame)]));
  const parents = new Map(profile.nodes.flatMap((node) => (node.children ?? []).map((child) => [child, node.id])));
  const byFunction = new Map<string, number>();
  const byModule = new Map<string, number>();
  const underModule = new Map<string, number>();
  let totalUs = 0;
  let sampledAtUs = profile.startTime;
  profile.samples.forEach((id, i) => {
    const frame = frames.get(id);
    const us = profile.timeDeltas[i] ?? 0;
    sampledAtUs += us;
    if (!frame || sampledAtUs < window.fromUs || sampledAtUs > window.toUs) return;
    totalUs += us;
    const module = moduleOf(frame.url, frame.functionName);
    const name = `${frame.functionName || "(anonymous)"} ${module}${frame.url ? `:${frame.lineNumber + 1}` : ""}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + us);
    byModule.set(module, (byModule.get(module) ?? 0) + us);
    const onStack = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parents.get(at)) {
      const caller = frames.get(at);
      if (caller) onStack.add(moduleOf(caller.url, caller.functionName));
    }
    for (const name of onStack) underModule.set(name, (underModule.get(name) ?? 0) + us);
  });
  console.log(`\n${(totalUs / 1e6).toFixed(1)} s sampled.\n`);
  console.log(top("self time by function", byFunction, totalUs));
  console.log("");
  console.log(top("self time by module", byModule, totalUs, underModule));
}

const sourceMaps = new Map<string, SourceMap>();

/** A frame of the built dist/ as its source names it (`src/http/auth.ts`, a package); any other frame as it is. */
function sourceFrame(frame: CpuProfile["nodes"][number]["callFrame"]): CpuProfile["nodes"][number]["callFrame"] {
  if (!/\/apps\/api\/dist\/[^/]+\.js$/.test(frame.url)) return frame;
  if (!sourceMaps.has(frame.url)) {
    const path = `${fileURLToPath(frame.url)}.map`;
    sourceMaps.set(frame.url, new SourceMap(JSON.parse(readFileSync(path, "utf8"))));
  }
  const entry = sourceMaps.get(frame.url)?.findEntry(frame.lineNumber, frame.columnNumber);
  if (!entry || !("originalSource" in entry)) return frame;
  return {
    ...frame,
    url: new URL(entry.originalSource, frame.url).href,
    lineNumber: entry.originalLine,
    columnNumber: entry.originalColumn,
  };
}

function top(title: string, times: Map<string, number>, totalUs: number, under?: Map<string, number>): string {
  const share = (us: number) => `${((100 * us) / totalUs).toFixed(1)} %`;
  const rows = [...times.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, topRows)
    .map(([name, us]) => [name, share(us), ...(under ? [share(under.get(name) ?? 0)] : [])]);
  return textTable([title, "self", ...(under ? ["with callees"] : [])], rows);
}

/** The npm package, the repository file, or the V8 pseudo-frame (`(garbage collector)`) a frame belongs to. */
function moduleOf(url: string, functionName: string): string {
  if (!url) return functionName.startsWith("(") ? functionName : "(native)";
  const packagePath = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (packagePath?.[1]) return packagePath[1];
  if (url.startsWith("node:")) return url;
  const repositoryPath = /\/apps\/api\/(.+)$/.exec(url) ?? /\/packages\/(.+)$/.exec(url);
  return repositoryPath?.[1] ?? url;
}

await main();
