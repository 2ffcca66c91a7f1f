// The API as a deployment runs it: `node dist/main.js`, built by the package's build (tsup.config.ts)
// at the start of each benchmark, with bench/counting-hook.ts preloaded to answer the benchmark.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import type { SQL } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import pg from "pg";
import { build } from "tsup";
import { createPlatform } from "../src/assembly/platform.ts";
import { openConfiguredStore } from "../src/store/open.ts";
import type { TargetName } from "./protocol.ts";
import { TargetProcess } from "./target-process.ts";

const packageRoot = fileURLToPath(new URL("..", import.meta.url));

/** The built service and the preload that counts for the benchmark. */
export interface CompiledApi {
  main: string;
  preload: string;
}

/** Builds dist/ as `pnpm build` does, and the counting preload beside the benchmark. */
export async function buildCompiledApi(): Promise<CompiledApi> {
  await promisify(execFile)("pnpm", ["exec", "tsup", "--silent"], { cwd: packageRoot });
  const outDir = join(packageRoot, "bench/.compiled");
  await build({
    config: false,
    entry: { "counting-hook": join(packageRoot, "bench/counting-hook.ts") },
    outDir,
    format: ["esm"],
    platform: "node",
    target: "node20",
    external: ["pg", "@electric-sql/pglite"],
    silent: true,
    clean: true,
  });
  return { main: join(packageRoot, "dist/main.js"), preload: pathToFileURL(join(outDir, "counting-hook.js")).href };
}

export interface CompiledTargetOptions {
  /** Accounts to create on the scale plan, one key each. */
  accounts: number;
  /** Each account's opening balance: the plan's monthly credits unless given; `null` is unlimited. */
  credits?: number | null;
  /**
   * The benchmark-only plan setting, run once the process listens: it writes the plans at start.
   * PGlite's data directory is the process's alone, so on it the plans stay as they are.
   */
  planSetting: SQL;
  /** Variables of the process besides the store's, the port and the role (`VERBATIM_LOG_LEVEL` among them). */
  env?: NodeJS.ProcessEnv;
  /** Options of the process's Node (`--cpu-prof` for bench/profile-me.ts). */
  nodeOptions?: string[];
}

/**
 * Starts `dist/main.js` in the API role on a store made for it: the PostgreSQL database of the
 * spec, or a PGlite data directory of its own (removed by `removeDataDir`). The accounts are
 * created before it starts, on the store as the process opens it (`openConfiguredStore`).
 */
export async function startCompiledApi<Spec extends { name: TargetName; databaseUrl?: string }>(
  compiled: CompiledApi,
  spec: Spec,
  options: CompiledTargetOptions,
): Promise<{ target: TargetProcess<Spec>; url: string; apiKeys: string[]; removeDataDir: () => void }> {
  const dataDir = mkdtempSync(join(tmpdir(), "verbatim-bench-"));
  const removeDataDir = () => rmSync(dataDir, { recursive: true, force: true });
  try {
    const store = await openConfiguredStore({ dataDir, databaseUrl: spec.databaseUrl });
    const platform = await createPlatform(store, { now: () => new Date() });
    const accounts = await Promise.all(
      Array.from({ length: options.accounts }, (_, index) =>
        platform.accounts.create({ plan: "scale", credits: options.credits, name: `bench ${index}` }),
      ),
    );
    platform.slots.close();
    await store.close();
    const apiKeys = accounts.map(({ key }) => key.key);
    const started = await TargetProcess.startProgram(compiled.main, spec, {
      preload: compiled.preload,
      nodeOptions: options.nodeOptions,
      env: {
        ...process.env,
        // As the other targets log: a line per request at `info` is a cost of its own (docs/performance.md).
        VERBATIM_LOG_LEVEL: process.env.VERBATIM_LOG_LEVEL ?? "error",
        ...options.env,
        NODE_ENV: "production",
        VERBATIM_ROLE: "api",
        HOST: "127.0.0.1",
        PORT: String(await freePort()),
        VERBATIM_DATA_DIR: dataDir,
        DATABASE_URL: spec.databaseUrl ?? "",
        VERBATIM_BENCH_API_KEYS: JSON.stringify(apiKeys),
      },
    });
    if (spec.databaseUrl) await runOnce(spec.databaseUrl, options.planSetting);
    return { ...started, removeDataDir };
  } catch (error) {
    removeDataDir();
    throw error;
  }
}

async function runOnce(databaseUrl: string, statement: SQL): Promise<void> {
  const query = new PgDialect().sqlToQuery(statement);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(query.sql, query.params);
  } finally {
    await client.end();
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}
