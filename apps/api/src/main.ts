import type { AddressInfo } from "node:net";
import { createYoutubeAdapter } from "./adapters/youtube/index.ts";
import { startAdminServer } from "./admin/server.ts";
import { createApp } from "./app.ts";
import { loadConfig } from "./config.ts";
import { createLogger } from "./logger.ts";
import { createPlatform } from "./platform.ts";
import type { Store } from "./store/database.ts";
import { adminSocketPath, DataDirectoryBusyError, openConfiguredStore } from "./store/open.ts";

const config = startOrExit(() => loadConfig(process.env));
const logger = createLogger(config.logLevel);
const now = () => new Date();

const store: Store = await openConfiguredStore(config, (err) =>
  logger.warn({ err }, "database connection closed"),
).catch((error: unknown) => {
  if (error instanceof DataDirectoryBusyError) exitWith(`${error.message}. Stop it first, or set VERBATIM_DATA_DIR.`);
  throw error;
});
const platform = await createPlatform(store, { now });

if ((await platform.accounts.list()).length === 0) {
  const { account, key } = await platform.accounts.create({ plan: "pro", name: "development" });
  process.stdout.write(
    `\nCreated a development account ${account.id} on the ${account.plan} plan with ${account.credits} credits.\n` +
      `Its API key, shown only this once:\n\n    ${key.key}\n\n` +
      `Manage accounts and keys with \`pnpm verbatim --help\`.\n\n`,
  );
}

const admin =
  store.engine === "embedded" ? await startAdminServer(platform, adminSocketPath(config.dataDir), logger) : undefined;
const housekeeping = setInterval(() => {
  platform.idempotency.sweep().catch((err: unknown) => logger.warn({ err }, "idempotency sweep failed"));
}, 60_000);
housekeeping.unref();

const app = createApp({
  config: { version: config.version, ...(config.publicUrl ? { publicUrl: config.publicUrl } : {}) },
  logger,
  now,
  platform,
  youtube: createYoutubeAdapter(config.youtube),
});

const server = app.listen(config.port, config.host, () => {
  const { address, port } = server.address() as AddressInfo;
  logger.info(
    { address, port, engine: store.engine, data_dir: store.engine === "embedded" ? config.dataDir : undefined },
    `Verbatim listening on http://${address}:${port}/api/v2`,
  );
});

// A second signal must not cut the shutdown short: Ctrl-C and systemd signal the whole process group.
let stopping = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    setTimeout(() => process.exit(1), 30_000).unref();
    logger.info({ signal }, "shutting down");
    clearInterval(housekeeping);
    admin?.close();
    server.close(() => {
      platform.slots.close();
      store.close().finally(() => process.exit(0));
    });
  });
}

/** Start-up problems an operator can fix are one line on stderr, not a stack trace. */
function startOrExit<T>(step: () => T): T {
  try {
    return step();
  } catch (error) {
    return exitWith(error instanceof Error ? error.message : String(error));
  }
}

function exitWith(message: string): never {
  process.stderr.write(`verbatim: ${message}\n`);
  process.exit(1);
}
