import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { spawnVerbatim } from "@verbatim/testkit";
import { seedDataDirectory } from "@verbatim/testkit/store-template";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ApiKeyView, IssuedKey } from "../../src/services/accounts/account-keys.ts";
import type { AccountView } from "../../src/services/accounts/accounts.ts";
import { type CommandResult, verbatimInProcess } from "./in-process.ts";

/**
 * The operator CLI: in this process, as src/cli/main.ts runs it, where a test is about what a
 * command does; as an operator runs it, `tsx src/cli/main.ts` or the package's bin, where it is
 * about the process (its exit code and output). The service runs as one process,
 * `node --import tsx src/main.ts`: the tsx command would put a second process in front of it that
 * relays signals and SIGKILLs the service unless it acknowledges within 30 ms, which fails on a busy
 * machine (see the report of these tests).
 */
const apiRoot = fileURLToPath(new URL("../..", import.meta.url));
const tsx = createRequire(import.meta.url).resolve("tsx/cli");
const cliEntry = join(apiRoot, "src/cli/main.ts");
const binEntry = join(apiRoot, "bin/verbatim.mjs");

/** How long one CLI command may take: opening the embedded store and migrating it takes seconds. */
const commandTimeoutMs = 60_000;
const serviceStartTimeoutMs = 90_000;

const keyPattern = /^vb_live_[0-9A-Za-z]{32}$/;
const anyKey = /vb_live_[0-9A-Za-z]{32}/g;

const children = new Set<ChildProcess>();
const temporaryDirectories: string[] = [];

afterAll(() => {
  for (const child of children) killGroup(child, "SIGKILL");
  for (const directory of temporaryDirectories) rmSync(directory, { recursive: true, force: true });
});

/** Kills the child and whatever it started (tsx runs the entry in a child process of its own). */
function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    child.kill(signal);
  }
}

/** A fresh data directory, holding the run's migrated store (see `seedDataDirectory`). */
function temporaryDirectory(label: string): string {
  const directory = mkdtempSync(join(tmpdir(), `verbatim-${label}-`));
  temporaryDirectories.push(directory);
  seedDataDirectory(directory);
  return directory;
}

/** The environment of a child: the test's own, without a store of its own unless given one. */
function environment(store: { dataDir: string; databaseUrl?: string }): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, VERBATIM_DATA_DIR: store.dataDir };
  delete env.DATABASE_URL;
  if (store.databaseUrl) env.DATABASE_URL = store.databaseUrl;
  return env;
}

/** Runs `verbatim <args>` in this process: what a command does. */
function verbatim(args: string[], env: NodeJS.ProcessEnv): Promise<CommandResult> {
  return verbatimInProcess(args, env);
}

/** Runs `tsx src/cli/main.ts <args>` as an operator does, to its end. */
function verbatimProcess(args: string[], env: NodeJS.ProcessEnv): Promise<CommandResult> {
  return runNode([tsx, cliEntry, ...args], env);
}

/** Runs `node <args>` in the API package to its end. */
function runNode(args: string[], env: NodeJS.ProcessEnv): Promise<CommandResult> {
  return finished(spawn(process.execPath, args, { cwd: apiRoot, env, detached: true }), `node ${args.join(" ")}`);
}

/** What a child printed and how it ended, once it has. */
function finished(child: ChildProcess, name: string): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    children.add(child);
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    const timer = setTimeout(() => {
      killGroup(child, "SIGKILL");
      reject(new Error(`${name} took over ${commandTimeoutMs} ms\n${stdout}\n${stderr}`));
    }, commandTimeoutMs);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      children.delete(child);
      resolve({ code, stdout, stderr });
    });
  });
}

function described(result: CommandResult): string {
  return `exit ${result.code}\nstdout: ${result.stdout.slice(0, 3000)}\nstderr: ${result.stderr.slice(0, 3000)}`;
}

/** Runs a command that must succeed and answers its parsed `--json` output. */
async function verbatimJson<T>(args: string[], env: NodeJS.ProcessEnv): Promise<T> {
  const result = await verbatim(args, env);
  expect(result.code, described(result)).toBe(0);
  return JSON.parse(result.stdout) as T;
}

/** Runs a command that must fail and answers its stderr. */
async function verbatimFails(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  const result = await verbatim(args, env);
  expect(result.code, described(result)).not.toBe(0);
  expect(result.code, described(result)).not.toBeNull();
  expect(result.stderr, described(result)).toMatch(/^error: /m);
  return result.stderr;
}

interface ShowJson extends AccountView {
  webhook_secret: string;
  keys: ApiKeyView[];
}

/**
 * `env` as the launcher takes it, on a free loopback port: the launcher adds this process's
 * environment, so a database `env` leaves unset is named empty, which names none.
 */
function serviceEnvironment(env: NodeJS.ProcessEnv): Record<string, string> {
  const given = Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined);
  return { ...Object.fromEntries(given), DATABASE_URL: env.DATABASE_URL ?? "", PORT: "0", HOST: "127.0.0.1" };
}

/** A running service, started as `node --import tsx src/main.ts` by the one launcher, `spawnVerbatim`. */
interface Service {
  child: ChildProcess;
  baseUrl: string;
  /** Everything it printed on stdout so far. */
  stdout(): string;
  /** Signals the service and answers its exit code. */
  stop(signal?: "SIGTERM" | "SIGINT"): Promise<number | null>;
}

async function startService(env: NodeJS.ProcessEnv): Promise<Service> {
  const { process: child } = spawnVerbatim(apiRoot, { ...serviceEnvironment(env), VERBATIM_LOG_LEVEL: "info" });
  children.add(child);
  let stdout = "";
  let stderr = "";
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      killGroup(child, "SIGKILL");
      reject(new Error(`the service did not listen within ${serviceStartTimeoutMs} ms\n${stdout}\n${stderr}`));
    }, serviceStartTimeoutMs);
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
      const listening = /"port":(\d+)[^\n]*"msg":"Verbatim listening/.exec(stdout);
      if (listening) {
        clearTimeout(timer);
        resolve(Number(listening[1]));
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the service exited with ${code} before listening\n${stdout}\n${stderr}`));
    });
  });
  return {
    child,
    baseUrl: `http://127.0.0.1:${port}/api/v2`,
    stdout: () => stdout,
    async stop(signal = "SIGTERM") {
      child.kill(signal);
      const timeout = new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), 30_000).unref());
      const outcome = await Promise.race([exited, timeout]);
      if (outcome === "timeout") {
        killGroup(child, "SIGKILL");
        throw new Error(`the service did not stop within 30 s of SIGTERM\n${stdout}\n${stderr}`);
      }
      children.delete(child);
      return outcome;
    },
  };
}

/** `GET /me` with a key: the status and the body, for messages. */
async function me(service: Service, key: string): Promise<{ status: number; body: string }> {
  const response = await fetch(`${service.baseUrl}/me`, { headers: { authorization: `Bearer ${key}` } });
  return { status: response.status, body: await response.text() };
}

async function expectKeyWorks(service: Service, key: string, expected: Record<string, unknown> = {}): Promise<void> {
  const answer = await me(service, key);
  expect(answer.status, answer.body).toBe(200);
  expect(JSON.parse(answer.body).data, answer.body).toMatchObject({ kind: "me", ...expected });
}

async function expectKeyRefused(service: Service, key: string): Promise<void> {
  const answer = await me(service, key);
  expect(answer.status, answer.body).toBe(401);
  expect(JSON.parse(answer.body).error, answer.body).toMatchObject({ code: "unauthorized", number: 1101 });
}

function secondsUntil(iso: string | null): number {
  return (Date.parse(iso ?? "") - Date.now()) / 1000;
}

/** The blocks that empty DATABASE_URL run on PGlite whichever pass runs them: the embedded pass does. */
const embeddedPass = !process.env.DATABASE_URL;

describe.runIf(embeddedPass)(
  "the CLI without a running service: every command works on the data directory and exits 0",
  () => {
    const dataDir = temporaryDirectory("cli");
    const env = environment({ dataDir });
    let account: AccountView;
    let firstKey: IssuedKey;
    let secondKey: IssuedKey;
    let webhookSecret: string;

    it(
      "creates an account and prints it with its first key as JSON",
      async () => {
        const result = await verbatim(["accounts", "create", "--plan", "free", "--credits", "5", "--name", "x"], env);
        expect(result.code, described(result)).toBe(0);
        expect(result.stderr, described(result)).toBe("");
        const created = JSON.parse(result.stdout) as { account: AccountView; key: IssuedKey };
        expect(created.account, result.stdout).toMatchObject({ name: "x", plan: "free", credits: 5 });
        expect(created.account.id, result.stdout).toMatch(/^acct_[0-9A-Z]{26}$/);
        expect(created.key.key, result.stdout).toMatch(keyPattern);
        expect(created.key, result.stdout).toMatchObject({
          account_id: created.account.id,
          state: "active",
          revoked_at: null,
          requests_per_minute: null,
        });
        expect(created.key.id, result.stdout).toMatch(/^key_/);
        account = created.account;
        firstKey = created.key;
      },
      commandTimeoutMs,
    );

    it("gives the data directory back when the command ends", () => {
      expect(existsSync(join(dataDir, "verbatim.lock"))).toBe(false);
      expect(existsSync(join(dataDir, "admin.sock"))).toBe(false);
    });

    it(
      "lists the accounts as JSON and for people",
      async () => {
        const listed = await verbatimJson<AccountView[]>(["accounts", "list", "--json"], env);
        expect(listed).toEqual([account]);
        const text = await verbatim(["accounts", "list"], env);
        expect(text.code, described(text)).toBe(0);
        expect(text.stdout, described(text)).toContain(`id: ${account.id}`);
        expect(text.stdout, described(text)).toContain("plan: free");
      },
      2 * commandTimeoutMs,
    );

    it(
      "answers the same through bin/verbatim.mjs, the package's bin, exit codes included",
      async () => {
        const listed = await runNode([binEntry, "accounts", "list", "--json"], env);
        expect(listed.code, described(listed)).toBe(0);
        expect(JSON.parse(listed.stdout)).toEqual([account]);
        const failed = await runNode([binEntry, "accounts", "show", "acct_nope"], env);
        expect(failed.code, described(failed)).toBe(1);
        expect(failed.stderr, described(failed)).toContain("error: No account acct_nope.");
      },
      2 * commandTimeoutMs,
    );

    it(
      "shows an account with its webhook secret and its keys by prefix, never the key itself",
      async () => {
        const result = await verbatim(["accounts", "show", account.id, "--json"], env);
        expect(result.code, described(result)).toBe(0);
        const shown = JSON.parse(result.stdout) as ShowJson;
        expect(shown).toMatchObject({ ...account });
        expect(shown.webhook_secret).toMatch(/^whsec_\S{16,}$/);
        expect(shown.keys).toEqual([expect.objectContaining({ id: firstKey.id, state: "active" })]);
        expect(shown.keys[0]?.prefix).toBe(`${firstKey.key.slice(0, 12)}…`);
        expect(shown.keys[0]).not.toHaveProperty("key");
        expect(result.stdout).not.toContain(firstKey.key);
        webhookSecret = shown.webhook_secret;
      },
      commandTimeoutMs,
    );

    it(
      "grants credits with a reason",
      async () => {
        const granted = await verbatimJson(
          ["credits", "grant", account.id, "10", "--reason", "test grant", "--json"],
          env,
        );
        expect(granted).toEqual({ id: account.id, credits: 15 });
      },
      commandTimeoutMs,
    );

    it(
      "creates another key, printed once, and lists both without either key",
      async () => {
        secondKey = await verbatimJson<IssuedKey>(["keys", "create", account.id, "--json"], env);
        expect(secondKey.key).toMatch(keyPattern);
        expect(secondKey).toMatchObject({ account_id: account.id, state: "active" });
        const result = await verbatim(["keys", "list", account.id, "--json"], env);
        expect(result.code, described(result)).toBe(0);
        const keys = JSON.parse(result.stdout) as ApiKeyView[];
        expect(keys.map((key) => key.id).sort()).toEqual([firstKey.id, secondKey.id].sort());
        expect(result.stdout.match(anyKey), result.stdout).toBeNull();
      },
      2 * commandTimeoutMs,
    );

    it(
      "sets a key's request limit and clears it with none",
      async () => {
        const limited = await verbatimJson<ApiKeyView>(["keys", "set-limit", secondKey.id, "5", "--json"], env);
        expect(limited).toMatchObject({ id: secondKey.id, requests_per_minute: 5 });
        const cleared = await verbatimJson<ApiKeyView>(["keys", "set-limit", secondKey.id, "none", "--json"], env);
        expect(cleared).toMatchObject({ id: secondKey.id, requests_per_minute: null });
      },
      2 * commandTimeoutMs,
    );

    it(
      "rotates a key with a 10 minute grace: a new key, and the old one revoking in 10 minutes",
      async () => {
        const rotated = await verbatimJson<{ issued: IssuedKey; revoked: ApiKeyView }>(
          ["keys", "rotate", firstKey.id, "--grace", "10m", "--json"],
          env,
        );
        expect(rotated.issued.key).toMatch(keyPattern);
        expect(rotated.issued).toMatchObject({ account_id: account.id, state: "active" });
        expect(rotated.revoked).toMatchObject({ id: firstKey.id, state: "revoking" });
        const graceLeft = secondsUntil(rotated.revoked.revoked_at);
        expect(graceLeft).toBeGreaterThan(600 - 60);
        expect(graceLeft).toBeLessThanOrEqual(600);
      },
      commandTimeoutMs,
    );

    it(
      "revokes a key at once, and refuses to rotate it afterwards",
      async () => {
        const revoked = await verbatimJson<ApiKeyView>(["keys", "revoke", secondKey.id, "--json"], env);
        expect(revoked).toMatchObject({ id: secondKey.id, state: "revoked" });
        expect(secondsUntil(revoked.revoked_at)).toBeLessThanOrEqual(0);
        const stderr = await verbatimFails(["keys", "rotate", secondKey.id], env);
        expect(stderr).toContain(`Key ${secondKey.id} is revoked.`);
      },
      2 * commandTimeoutMs,
    );

    it(
      "moves the account to another plan",
      async () => {
        const moved = await verbatimJson<AccountView>(["accounts", "set-plan", account.id, "pro", "--json"], env);
        expect(moved).toMatchObject({ id: account.id, plan: "pro", credits: 15 });
      },
      commandTimeoutMs,
    );

    it(
      "rotates the webhook secret",
      async () => {
        const rotated = await verbatimJson<{ id: string; webhook_secret: string }>(
          ["accounts", "rotate-webhook-secret", account.id, "--json"],
          env,
        );
        expect(rotated.id).toBe(account.id);
        expect(rotated.webhook_secret).toMatch(/^whsec_/);
        expect(rotated.webhook_secret).not.toBe(webhookSecret);
        const shown = await verbatimJson<ShowJson>(["accounts", "show", account.id, "--json"], env);
        expect(shown.webhook_secret).toBe(rotated.webhook_secret);
        expect(shown).toMatchObject({ plan: "pro", credits: 15 });
        expect(shown.keys.map((key) => key.state).sort()).toEqual(["active", "revoked", "revoking"]);
      },
      2 * commandTimeoutMs,
    );
  },
);

describe.runIf(embeddedPass)("the CLI with bad input: a message on stderr and a non-zero exit", () => {
  const dataDir = temporaryDirectory("cli-bad");
  const env = environment({ dataDir });

  it.concurrent.each([
    [
      "an unknown plan",
      ["accounts", "create", "--plan", "gold"],
      /the plan must be one of free, basic, pro, mega, scale/,
    ],
    ["a missing plan", ["accounts", "create"], /required option '--plan <plan>' not specified/],
    ["negative credits", ["accounts", "create", "--plan", "free", "--credits", "-3"], /--credits.*whole number/],
    ["non-numeric credits", ["accounts", "create", "--plan", "free", "--credits", "abc"], /--credits.*whole number/],
    ["fractional credits", ["accounts", "create", "--plan", "free", "--credits", "2.5"], /--credits.*whole number/],
    ["a grant of 0 credits", ["credits", "grant", "acct_x", "0"], /"0" is not a whole number above 0/],
    ["a negative grant", ["credits", "grant", "acct_x", "-5"], /whole number above 0|unknown option/],
    ["an unknown command", ["bogus"], /unknown command 'bogus'/],
    ["an unknown subcommand", ["accounts", "delete", "acct_x"], /unknown command 'delete'/],
    ["a set-plan to an unknown plan", ["accounts", "set-plan", "acct_x", "gold"], /the plan must be one of/],
    ["a word as --grace", ["keys", "rotate", "key_x", "--grace", "soon"], /"soon" is not a duration/],
    ["a negative --grace", ["keys", "rotate", "key_x", "--grace", "-5m"], /"-5m" is not a duration/],
    ["a key limit of 0", ["keys", "set-limit", "key_x", "0"], /"0" is not a whole number above 0/],
    [
      "a key limit that is not a number",
      ["keys", "set-limit", "key_x", "many"],
      /"many" is not a whole number above 0/,
    ],
  ])(
    "refuses %s",
    async (_name, args, message) => {
      const stderr = await verbatimFails(args, env);
      expect(stderr).toMatch(message);
    },
    commandTimeoutMs,
  );

  it(
    "refuses an unknown account id as not found",
    async () => {
      expect(await verbatimFails(["accounts", "show", "acct_nope"], env)).toContain("No account acct_nope.");
      expect(await verbatimFails(["credits", "grant", "acct_nope", "5"], env)).toContain("No account acct_nope");
      expect(await verbatimFails(["accounts", "set-plan", "acct_nope", "pro"], env)).toContain("No account acct_nope.");
      expect(await verbatimFails(["keys", "create", "acct_nope"], env)).toContain("No account acct_nope.");
    },
    4 * commandTimeoutMs,
  );

  it(
    "refuses an unknown key id as not found",
    async () => {
      expect(await verbatimFails(["keys", "revoke", "key_nope"], env)).toContain("No key key_nope.");
      expect(await verbatimFails(["keys", "rotate", "key_nope", "--grace", "10m"], env)).toContain("No key key_nope.");
    },
    2 * commandTimeoutMs,
  );

  it(
    "created nothing while refusing",
    async () => {
      expect(await verbatimJson(["accounts", "list", "--json"], env)).toEqual([]);
    },
    commandTimeoutMs,
  );

  it(
    "prints its help on --help and exits 0, as a process",
    async () => {
      const result = await verbatimProcess(["--help"], env);
      expect(result.code, described(result)).toBe(0);
      expect(result.stdout, described(result)).toMatch(/Usage: verbatim/);
    },
    commandTimeoutMs,
  );
});

describe.runIf(embeddedPass)("the CLI while the service runs on the same data directory", () => {
  const dataDir = temporaryDirectory("service");
  const env = environment({ dataDir });
  let service: Service;
  let developmentKey: string;
  let developmentAccountId: string;
  let operatorKey: IssuedKey;
  let revokedKey: IssuedKey;
  let rotation: { issued: IssuedKey; revoked: ApiKeyView };

  afterAll(async () => {
    await service?.stop().catch(() => undefined);
  }, 40_000);

  it(
    "prints a development key once on its first start, and the key works",
    async () => {
      service = await startService(env);
      const printed = service.stdout().match(anyKey) ?? [];
      expect(printed, service.stdout()).toHaveLength(1);
      developmentKey = printed[0] ?? "";
      const created = /Created a development account (acct_\w+) on the pro plan/.exec(service.stdout());
      expect(created, service.stdout()).not.toBeNull();
      developmentAccountId = created?.[1] ?? "";
      await expectKeyWorks(service, developmentKey, { user_id: developmentAccountId, plan: "pro" });
      expect(existsSync(join(dataDir, "admin.sock"))).toBe(true);
    },
    serviceStartTimeoutMs,
  );

  it(
    "refuses to start a second service on the data directory it holds",
    async () => {
      const second = await finished(spawnVerbatim(apiRoot, serviceEnvironment(env)).process, "a second service");
      expect(second.code, described(second)).toBe(1);
      expect(second.stderr, described(second)).toContain(`another Verbatim process holds ${dataDir}`);
      await expectKeyWorks(service, developmentKey);
    },
    commandTimeoutMs,
  );

  it(
    "creates an account through the admin socket whose key works against the service at once",
    async () => {
      const created = await verbatimJson<{ account: AccountView; key: IssuedKey }>(
        ["accounts", "create", "--plan", "basic", "--credits", "7", "--name", "while running"],
        env,
      );
      operatorKey = created.key;
      expect(operatorKey.key).toMatch(keyPattern);
      await expectKeyWorks(service, operatorKey.key, { user_id: created.account.id, plan: "basic", credits: 7 });
      const listed = await verbatimJson<AccountView[]>(["accounts", "list", "--json"], env);
      expect(listed.map((account) => account.id)).toEqual([developmentAccountId, created.account.id]);
    },
    2 * commandTimeoutMs,
  );

  it(
    "changes what the service answers at once: grants, plans and key limits",
    async () => {
      await verbatimJson(["credits", "grant", operatorKey.account_id, "3", "--json"], env);
      await verbatimJson(["accounts", "set-plan", operatorKey.account_id, "mega", "--json"], env);
      await verbatimJson(["keys", "set-limit", operatorKey.id, "4", "--json"], env);
      const answer = await me(service, operatorKey.key);
      expect(JSON.parse(answer.body).data, answer.body).toMatchObject({
        credits: 10,
        plan: "mega",
        rate_limit: { limit: 4, remaining: 4 },
      });
    },
    3 * commandTimeoutMs,
  );

  it(
    "refuses a key revoked by the CLI from the next request on",
    async () => {
      revokedKey = await verbatimJson<IssuedKey>(["keys", "create", operatorKey.account_id, "--json"], env);
      await expectKeyWorks(service, revokedKey.key);
      await verbatimJson(["keys", "revoke", revokedKey.id, "--json"], env);
      await expectKeyRefused(service, revokedKey.key);
    },
    2 * commandTimeoutMs,
  );

  it(
    "keeps the old key of a rotation with grace working next to the new one",
    async () => {
      const [developmentKeyId] = (
        await verbatimJson<ApiKeyView[]>(["keys", "list", developmentAccountId, "--json"], env)
      ).map((key) => key.id);
      rotation = await verbatimJson(["keys", "rotate", developmentKeyId ?? "", "--grace", "10m", "--json"], env);
      await expectKeyWorks(service, developmentKey);
      await expectKeyWorks(service, rotation.issued.key, { user_id: developmentAccountId });
    },
    2 * commandTimeoutMs,
  );

  it(
    "reports a failing command through the admin socket as an error",
    async () => {
      expect(await verbatimFails(["accounts", "show", "acct_nope"], env)).toContain("No account acct_nope.");
    },
    commandTimeoutMs,
  );

  it("never writes an API key into its logs", () => {
    const output = service.stdout();
    const keys = output.match(anyKey) ?? [];
    expect(keys, "only the development key's banner may show a key").toEqual([developmentKey]);
  });

  it(
    "stops cleanly on SIGTERM, giving back the data directory, which the CLI then opens itself",
    async () => {
      expect(await service.stop("SIGTERM"), service.stdout()).toBe(0);
      expect(service.stdout()).toContain('"msg":"shutting down"');
      expect(existsSync(join(dataDir, "admin.sock"))).toBe(false);
      expect(existsSync(join(dataDir, "verbatim.lock"))).toBe(false);
      const listed = await verbatimJson<AccountView[]>(["accounts", "list", "--json"], env);
      expect(listed).toHaveLength(2);
    },
    2 * commandTimeoutMs,
  );

  it(
    "starts again on the same data directory without a new development key, with every key as it was",
    async () => {
      service = await startService(env);
      expect(service.stdout().match(anyKey), service.stdout()).toBeNull();
      expect(service.stdout()).not.toContain("Created a development account");
      await expectKeyWorks(service, developmentKey, { user_id: developmentAccountId });
      await expectKeyWorks(service, rotation.issued.key, { user_id: developmentAccountId });
      await expectKeyWorks(service, operatorKey.key, { plan: "mega", credits: 10 });
      await expectKeyRefused(service, revokedKey.key);
      expect(await service.stop("SIGINT"), service.stdout()).toBe(0);
      expect(existsSync(join(dataDir, "verbatim.lock"))).toBe(false);
    },
    serviceStartTimeoutMs,
  );

  it(
    "gets the data directory back after the service was killed, once its lock is stale, with the data intact",
    async () => {
      service = await startService(env);
      service.child.kill("SIGKILL");
      await service.stop();
      // The killed service leaves its socket and a lock that turns stale 10 s after its last refresh.
      expect(existsSync(join(dataDir, "admin.sock"))).toBe(true);
      const deadline = Date.now() + 45_000;
      let listed = await verbatim(["accounts", "list", "--json"], env);
      while (listed.code !== 0 && Date.now() < deadline) {
        expect(listed.stderr, described(listed)).toMatch(/holds .* but its admin socket does not answer/);
        await new Promise((resolve) => setTimeout(resolve, 500));
        listed = await verbatim(["accounts", "list", "--json"], env);
      }
      expect(listed.code, described(listed)).toBe(0);
      expect(JSON.parse(listed.stdout)).toHaveLength(2);

      service = await startService(env);
      await expectKeyWorks(service, operatorKey.key, { plan: "mega", credits: 10 });
      expect(await service.stop(), service.stdout()).toBe(0);
    },
    serviceStartTimeoutMs + 2 * commandTimeoutMs,
  );
});

describe.runIf(process.env.DATABASE_URL)("the CLI on PostgreSQL", () => {
  const serverUrl = process.env.DATABASE_URL ?? "";
  const databaseName = `verbatim_cli_${randomBytes(6).toString("hex")}`;
  const databaseUrl = (() => {
    const url = new URL(serverUrl || "postgres://localhost/unused");
    url.pathname = `/${databaseName}`;
    return url.toString();
  })();
  const dataDir = temporaryDirectory("cli-postgres");
  const env = environment({ dataDir, databaseUrl });
  let service: Service | undefined;
  let account: AccountView;
  let key: IssuedKey;

  async function adminQuery(statement: string): Promise<void> {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  }

  beforeAll(() => adminQuery(`create database ${databaseName}`));
  afterAll(async () => {
    await service?.stop().catch(() => undefined);
    await adminQuery(`drop database if exists ${databaseName} with (force)`);
  }, 40_000);

  it(
    "creates, shows and changes accounts and keys directly in the database",
    async () => {
      const created = await verbatimJson<{ account: AccountView; key: IssuedKey }>(
        ["accounts", "create", "--plan", "free", "--credits", "5", "--name", "pg"],
        env,
      );
      account = created.account;
      key = created.key;
      expect(account.id).toMatch(/^acct_/);
      expect(key.key).toMatch(keyPattern);
      expect(await verbatimJson(["accounts", "list", "--json"], env)).toEqual([account]);
      expect(await verbatimJson(["credits", "grant", account.id, "10", "--json"], env)).toEqual({
        id: account.id,
        credits: 15,
      });
      const extra = await verbatimJson<IssuedKey>(["keys", "create", account.id, "--json"], env);
      expect(await verbatimJson(["keys", "revoke", extra.id, "--json"], env)).toMatchObject({ state: "revoked" });
      const shown = await verbatimJson<ShowJson>(["accounts", "show", account.id, "--json"], env);
      expect(shown).toMatchObject({ id: account.id, credits: 15 });
      expect(shown.webhook_secret).toMatch(/^whsec_/);
      expect(shown.keys.map((row) => row.state).sort()).toEqual(["active", "revoked"]);
      expect(await verbatimFails(["accounts", "show", "acct_nope"], env)).toContain("No account acct_nope.");
      expect(existsSync(join(dataDir, "pglite"))).toBe(false);
    },
    10 * commandTimeoutMs,
  );

  it(
    "works next to a running service on the same database, whose answers change at once",
    async () => {
      service = await startService(env);
      expect(service.stdout().match(anyKey), "no development key on a database with accounts").toBeNull();
      expect(existsSync(join(dataDir, "admin.sock"))).toBe(false);
      await expectKeyWorks(service, key.key, { user_id: account.id, credits: 15 });

      const created = await verbatimJson<{ account: AccountView; key: IssuedKey }>(
        ["accounts", "create", "--plan", "basic"],
        env,
      );
      await expectKeyWorks(service, created.key.key, { user_id: created.account.id, plan: "basic", credits: 1000 });
      await verbatimJson(["keys", "revoke", created.key.id, "--json"], env);
      await expectKeyRefused(service, created.key.key);
      expect(await service.stop()).toBe(0);
      service = undefined;
    },
    serviceStartTimeoutMs + 3 * commandTimeoutMs,
  );
});
