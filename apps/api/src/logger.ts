import { type Logger, pino } from "pino";

export type { Logger };

/** The service's structured logger. `VERBATIM_LOG_LEVEL` sets the level; tests pass `silent`. */
export function createLogger(level: string = process.env.VERBATIM_LOG_LEVEL ?? "info"): Logger {
  return pino({
    level,
    base: { service: "verbatim" },
    redact: { paths: ["req.headers.authorization", "*.headers.authorization", "key"], censor: "[redacted]" },
  });
}
