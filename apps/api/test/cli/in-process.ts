import { CommanderError } from "commander";
import { parseInvocation } from "../../src/cli/program.ts";
import { render } from "../../src/cli/render.ts";
import { execute } from "../../src/cli/transport.ts";
import { loadConfig } from "../../src/config.ts";

/** How a command ended, and what it printed. */
export interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `verbatim <args>` in this process with `env`, as src/cli/main.ts runs it: commander's
 * errors end with their exit code, any other with `error: <message>` and 1. Starting a process
 * instead takes seconds of a loaded machine to load the CLI before it even opens the store.
 */
export async function verbatimInProcess(args: string[], env: NodeJS.ProcessEnv): Promise<CommandResult> {
  let stdout = "";
  let stderr = "";
  const output = {
    out: (text: string) => {
      stdout += text;
    },
    err: (text: string) => {
      stderr += text;
    },
  };
  try {
    const invocation = parseInvocation(args, output);
    if (invocation) {
      const result = await execute(loadConfig(env), invocation.command);
      output.out(`${invocation.json ? JSON.stringify(result, null, 2) : render(result)}\n`);
    }
    return { code: 0, stdout, stderr };
  } catch (error) {
    if (error instanceof CommanderError) return { code: error.exitCode, stdout, stderr };
    output.err(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    return { code: 1, stdout, stderr };
  }
}
