import { mkdirSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { createApp } from "./app.ts";
import { loadConfig } from "./config.ts";
import { createLogger } from "./logger.ts";

const config = loadConfig(process.env);
const logger = createLogger(config.logLevel);

mkdirSync(config.dataDir, { recursive: true });

const app = createApp({
  config: { version: config.version, ...(config.publicUrl ? { publicUrl: config.publicUrl } : {}) },
  logger,
  now: () => new Date(),
});

const server = app.listen(config.port, config.host, () => {
  const { address, port } = server.address() as AddressInfo;
  logger.info({ address, port, data_dir: config.dataDir }, `Verbatim listening on http://${address}:${port}/api/v2`);
});

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    logger.info({ signal }, "shutting down");
    server.close(() => process.exit(0));
  });
}
