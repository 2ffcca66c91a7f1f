#!/usr/bin/env node
// `npx @verbatim/sdk <command>`: the SDK's command line for users of a Verbatim server.
import { CommanderError } from "commander";
import { Verbatim } from "../client.ts";
import { exitCodes, parseCommand } from "./program.ts";
import { errorReport, exitCodeOf, runCommand } from "./run.ts";

// The first Ctrl-C stops a live session (which charges what was heard); a second one ends the process.
const interrupt = new AbortController();
process.once("SIGINT", () => {
  interrupt.abort();
  process.once("SIGINT", () => process.exit(130));
});
const streams = {
  out: (text: string) => void process.stdout.write(text),
  err: process.stderr,
  interrupt: interrupt.signal,
};

// A reader that stops early (`verbatim channel @x | head`) closes the pipe: that ends the command, quietly.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code !== "EPIPE") throw error;
  process.exit(exitCodes.ok);
});

try {
  const command = parseCommand(process.argv.slice(2), {
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
  });
  if (command) {
    if (!process.env.VERBATIM_API_KEY) {
      process.stderr.write("error: set VERBATIM_API_KEY to your API key (vb_live_...)\n");
      process.exitCode = exitCodes.request;
    } else {
      await runCommand(command, new Verbatim(), streams);
    }
  }
} catch (error) {
  if (error instanceof CommanderError) {
    process.exitCode = error.exitCode;
  } else {
    process.stderr.write(errorReport(error));
    process.exitCode = exitCodeOf(error);
  }
}
