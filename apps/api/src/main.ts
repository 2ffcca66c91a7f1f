import type { AddressInfo } from "node:net";
import { startAdminServer } from "./admin/server.ts";
import { createApp } from "./app.ts";
import { loadConfig } from "./config.ts";
import { createLogger } from "./logger.ts";
import { createPlatform } from "./platform.ts";
import { adminSocketPath, openConfiguredStore } from "./store/open.ts";

const config = loadConfig(process.env);
// The access log records request headers; an API key must never reach it (only its SHA-256 is kept).
const logger = createLogger(config.logLevel).child(
  {},
  { redact: { paths: ["req.headers.authorization"], censor: "[redacted]" } },
);
const now = () => new Date();

const store = await openConfiguredStore(config);
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
});

const server = app.listen(config.port, config.host, () => {
  const { address, port } = server.address() as AddressInfo;
  logger.info(
    { address, port, engine: store.engine, data_dir: store.engine === "embedded" ? config.dataDir : undefined },
    `Verbatim listening on http://${address}:${port}/api/v2`,
  );
});

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    logger.info({ signal }, "shutting down");
    clearInterval(housekeeping);
    admin?.close();
    server.close(() => {
      platform.slots.close();
      store.close().finally(() => process.exit(0));
    });
  });
}
