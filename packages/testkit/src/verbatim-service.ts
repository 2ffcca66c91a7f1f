import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { type NodeProcess, spawnNodeScript } from "./node-process.ts";
import { seedDataDirectory } from "./store-template.ts";

const run = promisify(execFile);

/** How long a fresh service may take to listen and answer: PGlite creates its database first, slower on a loaded 2-core machine. */
const startTimeoutMs = 90_000;
/** How long a stopping service may take before it is killed. */
const stopTimeoutMs = 30_000;

export interface StartVerbatimOptions {
  /**
   * Where the caller runs, as `import.meta.url`: the `@verbatim/api` that resolves from there is
   * the service started, so the caller's package names the service, not this one.
   */
  from: string | URL;
  /** The account's plan (`free`, `basic`, `pro`, `mega`, `scale`); default `pro`. */
  plan?: string;
  /** The account's opening balance; default the plan's monthly credits. */
  credits?: number;
  /** Where the service reaches YouTube, e.g. a `FakeYoutube`: its pages, captions and media. Without it, youtube.com. */
  youtube?: { origin: string };
  /** More of the service's environment (`VERBATIM_INLINE_AUDIO_SECONDS`, ...), over the defaults. */
  env?: Record<string, string>;
}

/** A Verbatim service running as a process, with one account and its key. */
export interface VerbatimService {
  /** `http://127.0.0.1:<port>`, as the SDKs take it. */
  baseUrl: string;
  apiKey: string;
  accountId: string;
  /** The service's version, as `GET /health` reports it. */
  version: string;
  /** Runs the operator CLI (`verbatim <args>`) against this service, as an operator would; answers what it printed, as JSON. */
  operate(...args: string[]): Promise<unknown>;
  /** The account's webhook signing secret, as `verbatim accounts show` prints it. */
  webhookSecret(): Promise<string>;
  /** Every line the service printed on stdout (its log), for a failing test to show. */
  log: readonly string[];
  /** Stops the service with SIGTERM, as an operator does, and removes its data directory. */
  close(): Promise<void>;
}

/**
 * Runs the service of the API package at `apiPackage` as `pnpm start` does (`node --import tsx
 * src/main.ts`), with `env` over the caller's environment: the one launcher of the service as a
 * process, which `startVerbatim` and the API's own process tests share.
 */
export function spawnVerbatim(apiPackage: string, env: Record<string, string>): NodeProcess {
  return spawnNodeScript("src/main.ts", [], { cwd: apiPackage, env });
}

/**
 * Starts Verbatim as a user does (`node --import tsx src/main.ts`, as its `pnpm start` runs it)
 * on a free loopback port, on the embedded PGlite in a fresh data directory, then creates an
 * account through the operator CLI. Private targets are allowed, since every double and webhook
 * receiver of a test is on loopback, and upstream timeouts are short, since the doubles answer
 * at once.
 */
export async function startVerbatim(options: StartVerbatimOptions): Promise<VerbatimService> {
  const manifestPath = createRequire(options.from).resolve("@verbatim/api/package.json");
  const apiPackage = dirname(manifestPath);
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as { version: string; bin: { verbatim: string } };
  const dataDir = await mkdtemp(join(tmpdir(), "verbatim-service-"));
  seedDataDirectory(dataDir);
  const env: Record<string, string> = {
    PORT: "0",
    HOST: "127.0.0.1",
    // The fresh embedded store, whatever database the caller's environment names.
    DATABASE_URL: "",
    VERBATIM_DATA_DIR: dataDir,
    // Its line saying where it listens is logged at info.
    VERBATIM_LOG_LEVEL: "info",
    VERBATIM_ALLOW_PRIVATE_TARGETS: "1",
    // A loopback double answers in milliseconds; a loaded 2-core machine can still take seconds.
    VERBATIM_UPSTREAM_TIMEOUT_MS: "2500",
    VERBATIM_UPSTREAM_BUDGET_MS: "8000",
    VERBATIM_SHUTDOWN_GRACE_SECONDS: "0",
    ...(options.youtube
      ? { VERBATIM_YOUTUBE_ORIGIN: options.youtube.origin, VERBATIM_YOUTUBE_MEDIA_ORIGIN: options.youtube.origin }
      : {}),
    ...options.env,
  };
  const service = spawnVerbatim(apiPackage, env);
  const stop = async () => {
    const killed = setTimeout(() => service.process.kill("SIGKILL"), stopTimeoutMs);
    await service.kill("SIGTERM");
    clearTimeout(killed);
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    const baseUrl = await listeningAt(service);
    const operate = async (...args: string[]) => {
      const cli = join(apiPackage, manifest.bin.verbatim);
      const { stdout } = await run(process.execPath, [cli, ...args, "--json"], {
        cwd: apiPackage,
        env: { ...process.env, ...env },
      });
      return JSON.parse(stdout) as unknown;
    };
    // The operator's socket is open before the API listens: the account is made while the API warms up.
    const [created] = await Promise.all([
      operate(
        "accounts",
        "create",
        "--plan",
        options.plan ?? "pro",
        ...(options.credits === undefined ? [] : ["--credits", String(options.credits)]),
        "--name",
        "testkit",
      ) as Promise<{ account: { id: string }; key: { key: string } }>,
      healthy(baseUrl),
    ]);
    return {
      baseUrl,
      apiKey: created.key.key,
      accountId: created.account.id,
      version: manifest.version,
      operate,
      async webhookSecret() {
        const shown = (await operate("accounts", "show", created.account.id)) as { webhook_secret: string };
        return shown.webhook_secret;
      },
      log: service.lines,
      close: stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** The base URL the service logged when it began listening. */
async function listeningAt(service: NodeProcess): Promise<string> {
  const line = await service.waitForLine(/Verbatim listening on http:\/\/127\.0\.0\.1:\d+\//, startTimeoutMs);
  const port = /http:\/\/127\.0\.0\.1:(\d+)\//.exec(line)?.[1];
  return `http://127.0.0.1:${port}`;
}

/** Waits until `GET /api/v2/health` answers 200. */
async function healthy(baseUrl: string): Promise<void> {
  const deadline = Date.now() + startTimeoutMs;
  for (;;) {
    const status = await fetch(`${baseUrl}/api/v2/health`).then(
      (response) => response.status,
      () => 0,
    );
    if (status === 200) return;
    if (Date.now() > deadline) throw new Error(`${baseUrl}/api/v2/health did not answer 200 in time (last: ${status})`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
