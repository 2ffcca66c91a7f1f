import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { YoutubeAdapterConfig } from "./adapters/youtube/index.ts";

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
  /** How YouTube is reached: `VERBATIM_YOUTUBE_ORIGIN`, `VERBATIM_PROXY_URLS`, `VERBATIM_UPSTREAM_TIMEOUT_MS`, `VERBATIM_UPSTREAM_BUDGET_MS`. */
  youtube: YoutubeAdapterConfig;
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
    youtube: youtubeConfigFrom(env),
  };
}

/** The YouTube adapter's settings; unset values keep the adapter's defaults. */
export function youtubeConfigFrom(env: NodeJS.ProcessEnv): YoutubeAdapterConfig {
  const origin = env.VERBATIM_YOUTUBE_ORIGIN
    ? httpUrlFrom("VERBATIM_YOUTUBE_ORIGIN", env.VERBATIM_YOUTUBE_ORIGIN)
    : undefined;
  const proxyUrls = (env.VERBATIM_PROXY_URLS ?? "")
    .split(/[\s,]+/)
    .filter((value) => value.length > 0)
    .map((value) => httpUrlFrom("VERBATIM_PROXY_URLS", value));
  const attemptTimeoutMs = millisecondsFrom("VERBATIM_UPSTREAM_TIMEOUT_MS", env.VERBATIM_UPSTREAM_TIMEOUT_MS);
  const budgetMs = millisecondsFrom("VERBATIM_UPSTREAM_BUDGET_MS", env.VERBATIM_UPSTREAM_BUDGET_MS);
  return {
    ...(origin ? { origin: origin.replace(/\/+$/, "") } : {}),
    ...(proxyUrls.length > 0 ? { proxyUrls } : {}),
    ...(attemptTimeoutMs === undefined ? {} : { attemptTimeoutMs }),
    ...(budgetMs === undefined ? {} : { budgetMs }),
  };
}

function httpUrlFrom(name: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`${name} must hold http(s) URLs, not ${JSON.stringify(value)}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new Error(`${name} must hold http(s) URLs, not ${JSON.stringify(value)}`);
  }
  return value;
}

function millisecondsFrom(name: string, value: string | undefined): number | undefined {
  if (value === undefined || value === "") return undefined;
  const milliseconds = Number(value);
  if (!Number.isInteger(milliseconds) || milliseconds <= 0) {
    throw new Error(`${name} must be a positive number of milliseconds, not ${JSON.stringify(value)}`);
  }
  return milliseconds;
}

function portFrom(value: string | undefined): number {
  if (value === undefined || value === "") return 8080;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`PORT must be an integer from 0 to 65535, not ${JSON.stringify(value)}`);
  }
  return port;
}
