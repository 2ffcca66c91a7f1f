import { Piscina } from "piscina";
import { SourceError } from "../../sources/source-error.ts";
import type { ParsingTask, ParsingTasks } from "./parsing-tasks.ts";

/**
 * What a parsing thread loads. The sources need a thread that registers the TypeScript loader
 * first; the compiled build has the tasks as a JavaScript entry of its own beside the bundle.
 */
const threadEntry = import.meta.url.endsWith(".ts") ? "./parsing-worker.mjs" : "./parsing-tasks.js";

export interface IsolatedParserOptions {
  /** How long one parse may run before its thread is stopped. Default 10 s. */
  deadlineMs?: number;
  /** Heap of one parsing thread, in MiB; a parse that needs more fails. Default 512. */
  maxHeapMb?: number;
  /** Parsing threads at most. Default 1. */
  threads?: number;
}

/**
 * Parses fetched documents in worker threads, each parse under a deadline and a heap limit, so
 * a hostile feed or page costs its own request a refusal and never stalls the event loop that
 * answers everyone else. A thread that overran is stopped and replaced.
 */
export class IsolatedParser {
  private readonly pool: Piscina;
  private readonly deadlineMs: number;

  constructor(options: IsolatedParserOptions = {}) {
    this.deadlineMs = options.deadlineMs ?? 10_000;
    this.pool = new Piscina({
      filename: new URL(threadEntry, import.meta.url).href,
      name: "runParsingTask",
      minThreads: 0,
      maxThreads: options.threads ?? 1,
      // A thread takes about a second to load its parsers; keep it while requests come.
      idleTimeout: 60_000,
      resourceLimits: { maxOldGenerationSizeMb: options.maxHeapMb ?? 512 },
    });
  }

  /** Runs one parser on a document; `what` names the document in the refusal. */
  async parse<K extends keyof ParsingTasks>(
    what: string,
    name: K,
    ...args: Parameters<ParsingTasks[K]>
  ): Promise<ReturnType<ParsingTasks[K]>> {
    const task: ParsingTask<K> = { name, args };
    try {
      return (await this.pool.run(task, { signal: AbortSignal.timeout(this.deadlineMs) })) as ReturnType<
        ParsingTasks[K]
      >;
    } catch (error) {
      const reason =
        error instanceof Error && error.name === "AbortError"
          ? `took longer than ${this.deadlineMs / 1000} s to parse`
          : `could not be parsed (${error instanceof Error ? error.message : String(error)})`;
      throw new SourceError("invalid_input", `${what} ${reason}.`, { cause: error });
    }
  }

  /** Stops the threads; parses still running fail. */
  async close(): Promise<void> {
    await this.pool.close({ force: true });
  }
}
