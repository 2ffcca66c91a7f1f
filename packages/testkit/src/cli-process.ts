import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { build } from "tsup";

/** How a run of the command line ended and what it printed. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A command line built as its package's `pnpm build` builds `dist/cli.js`, in a directory of its own; `remove` deletes it. */
export interface BuiltCli {
  command: readonly string[];
  remove: () => Promise<void>;
}

/**
 * Builds the command line of the package at `packageRoot` (`src/cli/main.ts`) as the package's
 * build does, into a directory inside the package, where its dependencies (left external, as in
 * `dist/cli.js`) resolve from the package's node_modules.
 */
export async function buildCli(packageRoot: string): Promise<BuiltCli> {
  const cache = join(packageRoot, "node_modules", ".cache");
  await mkdir(cache, { recursive: true });
  const outDir = await mkdtemp(join(cache, "verbatim-cli-"));
  // tsup leaves out the dependencies of the package.json in the working directory, which is the
  // workspace's root under vitest: name the package's own, as its build in this folder does.
  const { dependencies } = JSON.parse(await readFile(join(packageRoot, "package.json"), "utf8"));
  await build({
    config: false,
    entry: { cli: join(packageRoot, "src/cli/main.ts") },
    format: ["esm"],
    target: "node20",
    platform: "node",
    outDir,
    external: Object.keys(dependencies),
    silent: true,
  });
  return {
    command: [process.execPath, join(outDir, "cli.js")],
    remove: () => rm(outDir, { recursive: true, force: true }),
  };
}

/** The environment of a run: this process's, without its own VERBATIM_* settings, plus `env`. */
function environment(env: Record<string, string>): NodeJS.ProcessEnv {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("VERBATIM_")));
  return { ...inherited, ...env };
}

function collect(command: string, args: string[], env: Record<string, string>): Promise<CliRun> {
  const child = spawn(command, args, { env: environment(env), stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8");
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** Runs `verbatim <args>` with pipes for its output, as a script or a log would. */
export function runCli(cli: BuiltCli, args: string[], env: Record<string, string>): Promise<CliRun> {
  const [command, ...commandArgs] = cli.command as [string, ...string[]];
  return collect(command, [...commandArgs, ...args], env);
}

/**
 * Runs `verbatim <args>` on a pseudo-terminal, with util-linux `script`: its stdout and stderr are
 * the terminal, and `stdout` of the result is everything the terminal showed (with `\r\n` line ends).
 */
export function runCliOnTerminal(cli: BuiltCli, args: string[], env: Record<string, string>): Promise<CliRun> {
  const commandLine = [...cli.command, ...args].map(shellQuoted).join(" ");
  return collect("script", ["--quiet", "--flush", "--return", "--command", commandLine, "/dev/null"], env);
}

function shellQuoted(word: string): string {
  return `'${word.replaceAll("'", "'\\''")}'`;
}
