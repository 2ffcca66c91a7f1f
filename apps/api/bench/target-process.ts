import { type ChildProcess, fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { ChildMessage, ParentMessage } from "./protocol.ts";

/** What every child entry's spec holds: the target's name, for messages. */
export interface NamedSpec {
  name: string;
}

type Counted = Extract<ChildMessage, { type: "counted" }>;

/**
 * A target server running in its own child process, so it never shares the load generator's event loop.
 * The child entry (bench/target-server.ts, bench/youtube-target-server.ts) speaks bench/protocol.ts.
 */
export class TargetProcess<Spec extends NamedSpec = NamedSpec> {
  private waiting: { type: ChildMessage["type"]; resolve: (m: ChildMessage) => void; reject: (e: Error) => void }[] =
    [];
  private exited: Error | null = null;

  private constructor(
    readonly spec: Spec,
    private readonly child: ChildProcess,
  ) {
    child.on("message", (message: ChildMessage) => {
      const index = this.waiting.findIndex((w) => w.type === message.type || message.type === "failed");
      const waiter = index < 0 ? undefined : this.waiting.splice(index, 1)[0];
      if (!waiter) return;
      if (message.type === "failed") waiter.reject(new Error(`${spec.name} failed to start:\n${message.message}`));
      else waiter.resolve(message);
    });
    child.on("exit", (code, signal) => {
      this.exited = new Error(`the ${spec.name} server exited (code ${code}, signal ${signal})`);
      for (const waiter of this.waiting.splice(0)) waiter.reject(this.exited);
    });
  }

  /**
   * Forks `entry` with `spec` as JSON in its `argv[2]` and waits until it listens; rejects with the
   * child's reason when it cannot start. `nodeOptions` go to the child's Node (`--cpu-prof` for bench/profile-me.ts).
   */
  static async start<Spec extends NamedSpec>(
    entry: URL,
    spec: Spec,
    { timeoutMs = 90_000, nodeOptions = [] }: { timeoutMs?: number; nodeOptions?: string[] } = {},
  ): Promise<{ target: TargetProcess<Spec>; url: string; apiKeys: string[] }> {
    const child = fork(fileURLToPath(entry), [JSON.stringify(spec)], {
      execArgv: [...nodeOptions, "--import", import.meta.resolve("tsx")],
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    return TargetProcess.started(new TargetProcess(spec, child), timeoutMs);
  }

  /**
   * Forks a built program (`dist/main.js`) with `preload`, which speaks bench/protocol.ts for it
   * (bench/counting-hook.ts), and `env`; waits until it listens. Its standard output is dropped.
   * `nodeOptions` go to its Node (`--cpu-prof` for bench/profile-me.ts).
   */
  static async startProgram<Spec extends NamedSpec>(
    program: string,
    spec: Spec,
    {
      preload,
      env,
      timeoutMs = 120_000,
      nodeOptions = [],
    }: { preload: string; env: NodeJS.ProcessEnv; timeoutMs?: number; nodeOptions?: string[] },
  ): Promise<{ target: TargetProcess<Spec>; url: string; apiKeys: string[] }> {
    const child = fork(program, [], {
      execArgv: [...nodeOptions, "--import", preload],
      env,
      stdio: ["ignore", "ignore", "inherit", "ipc"],
    });
    return TargetProcess.started(new TargetProcess(spec, child), timeoutMs);
  }

  private static async started<Spec extends NamedSpec>(
    target: TargetProcess<Spec>,
    timeoutMs: number,
  ): Promise<{ target: TargetProcess<Spec>; url: string; apiKeys: string[] }> {
    const { spec } = target;
    let timer: NodeJS.Timeout | undefined;
    try {
      const ready = await Promise.race([
        target.next("ready"),
        new Promise<never>((_resolve, reject) => {
          timer = setTimeout(
            () => reject(new Error(`${spec.name} did not start within ${timeoutMs / 1000} s`)),
            timeoutMs,
          );
        }),
      ]);
      if (ready.type !== "ready") throw new Error(`unexpected message ${ready.type}`);
      return { target, url: `http://127.0.0.1:${ready.port}`, apiKeys: ready.apiKeys };
    } catch (error) {
      await target.close();
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  /** The child's process id. */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Resets the child's counters and starts counting requests and statements. */
  async countStart(): Promise<void> {
    this.post({ type: "count-start" });
    await this.next("counting");
  }

  /** Stops counting and answers what was counted. */
  async countStop(): Promise<Counted> {
    this.post({ type: "count-stop" });
    const message = await this.next("counted");
    if (message.type !== "counted") throw new Error(`unexpected message ${message.type}`);
    return message;
  }

  /** Asks the child to close its server and store, and kills it if it does not exit in time. */
  async close(): Promise<void> {
    if (this.exited || this.child.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => this.child.once("exit", () => resolve()));
    if (this.child.connected) this.post({ type: "close" });
    const timer = setTimeout(() => this.child.kill("SIGKILL"), 10_000);
    await exited;
    clearTimeout(timer);
  }

  private post(message: ParentMessage): void {
    if (this.exited) throw this.exited;
    this.child.send(message);
  }

  private next(type: ChildMessage["type"]): Promise<ChildMessage> {
    if (this.exited) return Promise.reject(this.exited);
    return new Promise((resolve, reject) => this.waiting.push({ type, resolve, reject }));
  }
}
