import { Command, InvalidArgumentError, Option } from "commander";
import ms from "ms";
import type { AdminCommand } from "../admin/commands.ts";
import { isPlanName, type PlanName, planNames } from "../services/accounts/index.ts";

/** What the program decided to run, and how to print it. */
export interface Invocation {
  command: AdminCommand;
  json: boolean;
}

/** Parses `verbatim <command>`; answers `undefined` when commander already printed help or an error. */
export function parseInvocation(
  argv: string[],
  output: { out: (text: string) => void; err: (text: string) => void },
): Invocation | undefined {
  let invocation: Invocation | undefined;
  const program = operatorProgram((chosen) => {
    invocation = chosen;
  }, output);
  program.parse(argv, { from: "user" });
  return invocation;
}

/**
 * Every command of `verbatim`; an action hands what it decided to `invoke`. Each command takes
 * `--json`. Errors and help go to `output`, and throw instead of exiting the process.
 */
export function operatorProgram(
  invoke: (invocation: Invocation) => void,
  output: { out: (text: string) => void; err: (text: string) => void } = { out: () => {}, err: () => {} },
): Command {
  // Subcommands copy these settings when they are added, so they come first.
  const program = new Command("verbatim")
    .description("Operate a Verbatim service: accounts, credits, API keys, webhooks and dashboard sign-in links.")
    .exitOverride()
    .configureOutput({ writeOut: output.out, writeErr: output.err })
    .showHelpAfterError();

  const run =
    (command: AdminCommand) =>
    (_: unknown, options: { json?: boolean } = {}) => {
      invoke({ command, json: Boolean(options.json) });
    };
  const json = () => new Option("--json", "print JSON");
  const accounts = program.command("accounts").description("manage accounts");
  accounts
    .command("create")
    .description("create an account and its first API key (printed once, as JSON)")
    .requiredOption("--plan <plan>", `one of ${planNames.join(", ")}`, planArgument)
    .option("--credits <n>", "opening balance (default: the plan's monthly credits)", wholeNumber)
    .option("--name <name>", "a name to recognise the account by")
    .addOption(json())
    .action((options: { plan: PlanName; credits?: number; name?: string }) => {
      // The first key is shown only here, so the account is always printed whole, as JSON.
      invoke({
        command: {
          name: "accounts.create",
          plan: options.plan,
          ...(options.credits === undefined ? {} : { credits: options.credits }),
          ...(options.name === undefined ? {} : { accountName: options.name }),
        },
        json: true,
      });
    });
  accounts
    .command("list")
    .description("list accounts")
    .addOption(json())
    .action((options: { json?: boolean }) => run({ name: "accounts.list" })(undefined, options));
  accounts
    .command("show <account-id>")
    .description("show an account, its keys and its webhook secret")
    .addOption(json())
    .action((accountId: string, options: { json?: boolean }) =>
      run({ name: "accounts.show", accountId })(undefined, options),
    );
  accounts
    .command("set-plan")
    .description("move an account to another plan")
    .argument("<account-id>")
    .argument("<plan>", `one of ${planNames.join(", ")}`, planArgument)
    .addOption(json())
    .action((accountId: string, plan: PlanName, options: { json?: boolean }) =>
      run({ name: "accounts.set-plan", accountId, plan })(undefined, options),
    );
  accounts
    .command("rotate-webhook-secret <account-id>")
    .description("replace the account's webhook signing secret")
    .addOption(json())
    .action((accountId: string, options: { json?: boolean }) =>
      run({ name: "accounts.rotate-webhook-secret", accountId })(undefined, options),
    );

  program
    .command("credits")
    .description("manage credits")
    .command("grant")
    .description("add credits to an account")
    .argument("<account-id>")
    .argument("<credits>", "how many, a whole number above 0", positiveNumber)
    .option("--reason <text>", "why, for the ledger")
    .addOption(json())
    .action((accountId: string, credits: number, options: { reason?: string; json?: boolean }) =>
      run({
        name: "credits.grant",
        accountId,
        credits,
        ...(options.reason === undefined ? {} : { reason: options.reason }),
      })(undefined, options),
    );

  const keys = program.command("keys").description("manage API keys");
  keys
    .command("create <account-id>")
    .description("issue another key for an account (printed once)")
    .addOption(json())
    .action((accountId: string, options: { json?: boolean }) =>
      run({ name: "keys.create", accountId })(undefined, options),
    );
  keys
    .command("list <account-id>")
    .description("list an account's keys")
    .addOption(json())
    .action((accountId: string, options: { json?: boolean }) =>
      run({ name: "keys.list", accountId })(undefined, options),
    );
  keys
    .command("revoke <key-id>")
    .description("revoke a key from its next request on")
    .addOption(json())
    .action((keyId: string, options: { json?: boolean }) => run({ name: "keys.revoke", keyId })(undefined, options));
  keys
    .command("rotate <key-id>")
    .description("issue a new key and revoke the old one, after a grace period if given")
    .option("--grace <duration>", "keep the old key working this long (10m, 2h, 1d)", duration, 0)
    .addOption(json())
    .action((keyId: string, options: { grace: number; json?: boolean }) =>
      run({ name: "keys.rotate", keyId, graceSeconds: options.grace })(undefined, options),
    );
  keys
    .command("set-limit")
    .description("give a key a lower requests-per-minute limit than its plan")
    .argument("<key-id>")
    .argument("<requests-per-minute>", "a whole number above 0, or `none` to clear the limit", limitArgument)
    .addOption(json())
    .action((keyId: string, requestsPerMinute: number | null, options: { json?: boolean }) =>
      run({ name: "keys.set-limit", keyId, requestsPerMinute })(undefined, options),
    );

  program
    .command("webhooks")
    .description("inspect webhook deliveries")
    .command("list <account-id>")
    .description("list an account's recent deliveries: status, attempts and the last answer")
    .option("--limit <n>", "how many, newest first", positiveNumber, 20)
    .addOption(json())
    .action((accountId: string, options: { limit: number; json?: boolean }) =>
      run({ name: "webhooks.list", accountId, limit: options.limit })(undefined, options),
    );

  const dashboard = program.command("dashboard").description("the account dashboard and its sessions");
  dashboard
    .command("link <account-id>")
    .description("print a one-time sign-in link to the account's dashboard, valid for 15 minutes")
    .option(
      "--base-url <url>",
      "where the dashboard is reached (default: VERBATIM_PUBLIC_URL, else this machine's PORT)",
      baseUrlArgument,
      defaultBaseUrl(),
    )
    .addOption(json())
    .action((accountId: string, options: { baseUrl: string; json?: boolean }) =>
      run({ name: "dashboard.link", accountId, baseUrl: options.baseUrl })(undefined, options),
    );
  dashboard
    .command("sessions <account-id>")
    .description("list an account's open dashboard sessions and the key that opened each")
    .addOption(json())
    .action((accountId: string, options: { json?: boolean }) =>
      run({ name: "dashboard.sessions", accountId })(undefined, options),
    );
  dashboard
    .command("end-session <session-id>")
    .description("end a dashboard session now")
    .addOption(json())
    .action((sessionId: string, options: { json?: boolean }) =>
      run({ name: "dashboard.end-session", sessionId })(undefined, options),
    );

  return program;
}

/** The service's address as this machine's environment gives it. */
function defaultBaseUrl(env: NodeJS.ProcessEnv = process.env): string {
  return (env.VERBATIM_PUBLIC_URL || `http://127.0.0.1:${env.PORT || 8080}`).replace(/\/+$/, "");
}

function baseUrlArgument(value: string): string {
  if (!/^https?:\/\/[^/\s]+/.test(value) || !URL.canParse(value)) {
    throw new InvalidArgumentError("must be an http(s) address such as https://verbatim.example.com.");
  }
  return value.replace(/\/+$/, "");
}

function planArgument(value: string): PlanName {
  if (!isPlanName(value)) throw new InvalidArgumentError(`the plan must be one of ${planNames.join(", ")}.`);
  return value;
}

function wholeNumber(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError("must be a whole number of at least 0.");
  return Number(value);
}

function positiveNumber(value: string): number {
  if (!/^[1-9]\d*$/.test(value))
    throw new InvalidArgumentError(`${JSON.stringify(value)} is not a whole number above 0.`);
  return Number(value);
}

function limitArgument(value: string): number | null {
  return value === "none" ? null : positiveNumber(value);
}

function duration(value: string): number {
  const milliseconds = /^\d+$/.test(value) ? Number(value) * 1000 : ms(value as ms.StringValue);
  if (typeof milliseconds !== "number" || !Number.isFinite(milliseconds) || milliseconds < 0) {
    throw new InvalidArgumentError(`${JSON.stringify(value)} is not a duration such as 30s, 10m or 2h.`);
  }
  return Math.round(milliseconds / 1000);
}
