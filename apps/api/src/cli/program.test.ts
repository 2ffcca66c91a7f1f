import type { Command } from "commander";
import { describe, expect, it } from "vitest";
import { operatorProgram, parseInvocation } from "./program.ts";

function leavesOf(command: Command, path: string[] = []): { path: string[]; command: Command }[] {
  if (command.commands.length === 0) return [{ path, command }];
  return command.commands.flatMap((child) => leavesOf(child, [...path, child.name()]));
}

function parse(argv: string[]) {
  const printed: string[] = [];
  const push = (text: string) => printed.push(text);
  try {
    return { invocation: parseInvocation(argv, { out: push, err: push }), printed };
  } catch (error) {
    return { invocation: undefined, printed, error };
  }
}

describe("verbatim's commands", () => {
  const leaves = leavesOf(operatorProgram(() => undefined));

  it("has the commands the README names", () => {
    expect(leaves.map((leaf) => leaf.path.join(" "))).toEqual(
      expect.arrayContaining(["accounts create", "accounts list", "credits grant", "keys rotate", "webhooks list"]),
    );
  });

  it.each(leaves.map((leaf) => [leaf.path.join(" "), leaf.command] as const))("%s accepts --json", (_, command) => {
    expect(command.options.map((option) => option.long)).toContain("--json");
  });

  it("parses accounts create with --json, printing JSON", () => {
    const { invocation, printed } = parse(["accounts", "create", "--plan", "pro", "--name", "acme", "--json"]);
    expect(printed).toEqual([]);
    expect(invocation).toEqual({ command: { name: "accounts.create", plan: "pro", accountName: "acme" }, json: true });
  });

  it("refuses an unknown option with a message", () => {
    const { invocation, printed } = parse(["accounts", "list", "--yaml"]);
    expect(invocation).toBeUndefined();
    expect(printed.join("")).toContain("unknown option '--yaml'");
  });
});
