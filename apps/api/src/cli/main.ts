import { CommanderError } from "commander";
import { loadConfig } from "../config.ts";
import { parseInvocation } from "./program.ts";
import { render } from "./render.ts";
import { CommandError, execute } from "./transport.ts";

const output = { out: (text: string) => process.stdout.write(text), err: (text: string) => process.stderr.write(text) };

try {
  const invocation = parseInvocation(process.argv.slice(2), output);
  if (invocation) {
    const result = await execute(loadConfig(process.env), invocation.command);
    output.out(`${invocation.json ? JSON.stringify(result, null, 2) : render(result)}\n`);
  }
} catch (error) {
  if (error instanceof CommanderError) {
    process.exitCode = error.exitCode;
  } else if (error instanceof CommandError) {
    output.err(`error: ${error.message}\n`);
    process.exitCode = 1;
  } else {
    output.err(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}
