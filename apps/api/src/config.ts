import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The service's configuration, read from the environment once, at start-up. */
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** A PostgreSQL server for the distributed deployment; without it the embedded PGlite in `dataDir` is used. */
  databaseUrl: string | undefined;
  publicUrl: string | undefined;
  version: string;
  logLevel: string;
}

const repositoryRoot = fileURLToPath(new URL("../../..", import.meta.url));

/** The service's version, from its package. */
export const serviceVersion: string = JSON.parse(
  readFileSync(new URL("../package.json", import.meta.url), "utf8"),
).version;

/** Reads the configuration; a bad value stops start-up with a message naming the variable. */
export function loadConfig(env: NodeJS.ProcessEnv): Config {
  return {
    port: portFrom(env.PORT),
    host: env.HOST ?? "127.0.0.1",
    dataDir: resolve(env.VERBATIM_DATA_DIR ?? resolve(repositoryRoot, ".verbatim")),
    databaseUrl: env.DATABASE_URL || undefined,
    publicUrl: env.VERBATIM_PUBLIC_URL?.replace(/\/+$/, ""),
    version: serviceVersion,
    logLevel: env.VERBATIM_LOG_LEVEL ?? "info",
  };
}

function portFrom(value: string | undefined): number {
  if (value === undefined || value === "") return 8080;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`PORT must be an integer from 0 to 65535, not ${JSON.stringify(value)}`);
  }
  return port;
}
