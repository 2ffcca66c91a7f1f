import type { Logger } from "./logger.ts";
import type { Platform } from "./platform.ts";

/** Settings of the HTTP layer. */
export interface HttpConfig {
  /** The service's version, reported by health. */
  version: string;
  /** The public address of the service, for `error.docs` links; derived from each request when absent. */
  publicUrl?: string;
}

/** Everything `createApp` needs; tests build it without environment variables. */
export interface AppDeps {
  config: HttpConfig;
  logger: Logger;
  /** The clock; tests may fix it. */
  now: () => Date;
  /** The account platform: storage, keys, allowances, credits, slots, idempotency. */
  platform: Platform;
  /** Validate every response against the OpenAPI document (on in tests; a mismatch answers 500). */
  validateResponses?: boolean;
}
