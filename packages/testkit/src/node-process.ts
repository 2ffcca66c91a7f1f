import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { createInterface } from "node:readline";

/** A script running as a child Node process. */
export interface NodeProcess {
  process: ChildProcessWithoutNullStreams;
  /** Every line it has printed on stdout so far (its log, for a failing test to show). */
  lines: readonly string[];
  /**
   * Resolves with the first line of stdout matching `pattern`, already printed or yet to come;
   * rejects, with the tail of stderr, when the process ends or `timeoutMs` passes first.
   */
  waitForLine(pattern: RegExp, timeoutMs: number): Promise<string>;
  /** Resolves when the process has exited, however. */
  exited: Promise<void>;
  /** Signals it and waits for it to exit; harmless once it has exited. */
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** Where a child runs, and what it finds in its environment. */
export interface NodeProcessOptions {
  /** Its working directory: a package where `--import tsx` resolves, for TypeScript scripts. */
  cwd: string;
  /** Added to this process's environment. */
  env?: Record<string, string>;
}

/**
 * Runs `node --import tsx <script> <args>` in `cwd`, with `env` added to this process's
 * environment. The tail of stderr goes into timeout errors.
 */
export function spawnNodeScript(script: string, args: string[], options: NodeProcessOptions): NodeProcess {
  return spawnNode(script, ["--import", "tsx", script, ...args], options);
}

/**
 * Runs `node <nodeArgs>` in `cwd` with `env` added to this process's environment, e.g. compiled
 * JavaScript with no loader. `name` names it in timeout errors.
 */
export function spawnNode(name: string, nodeArgs: string[], options: NodeProcessOptions): NodeProcess {
  const child = spawn(process.execPath, nodeArgs, {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: "pipe",
  });
  const lines: string[] = [];
  const waiters: Array<{ pattern: RegExp; resolve: (line: string) => void; reject: (error: Error) => void }> = [];
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString("utf8")).slice(-4000);
  });
  createInterface({ input: child.stdout }).on("line", (line) => {
    lines.push(line);
    for (const waiter of waiters.filter((candidate) => candidate.pattern.test(line))) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve(line);
    }
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const ended = (pattern: RegExp) => new Error(`${name} ended without printing a line matching ${pattern}:\n${stderr}`);
  let closed = false;
  // After its output has been read to the end: no line a waiter wants can come any more.
  child.once("close", () => {
    closed = true;
    for (const waiter of waiters.splice(0)) waiter.reject(ended(waiter.pattern));
  });
  return {
    process: child,
    lines,
    exited,
    waitForLine(pattern, timeoutMs) {
      const seen = lines.find((line) => pattern.test(line));
      if (seen !== undefined) return Promise.resolve(seen);
      if (closed) return Promise.reject(ended(pattern));
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`${name} printed no line matching ${pattern} within ${timeoutMs} ms:\n${stderr}`)),
          timeoutMs,
        );
        waiters.push({
          pattern,
          resolve: (line) => {
            clearTimeout(timer);
            resolve(line);
          },
          reject: (error) => {
            clearTimeout(timer);
            reject(error);
          },
        });
      });
    },
    async kill(signal = "SIGTERM") {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill(signal);
      await exited;
    },
  };
}
