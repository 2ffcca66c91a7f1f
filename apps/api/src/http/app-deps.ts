import type { Logger } from "../logger.ts";
import type { ServiceMetrics } from "../metrics.ts";
import type { Platform, Services } from "../services/process-services.ts";

/** Where a test may make the process die as a crash would (`VERBATIM_TEST_FAULTS`). */
export const faultPoints = ["exit-after-charge"] as const;

/** `exit-after-charge`: a request with an Idempotency-Key has charged and answered, and its answer is not yet recorded. */
export type FaultPoint = (typeof faultPoints)[number];
/** Settings of the HTTP layer. */
export interface HttpConfig {
  /** The service's version, reported by health. */
  version: string;
  /** The public address of the service, for `error.docs` links; derived from each request when absent. */
  publicUrl?: string;
  /** How long a batch may run before it answers with the rows it has (`VERBATIM_BATCH_DEADLINE_SECONDS`); default 60 s. */
  batchDeadlineMs?: number;
  /** `VERBATIM_METRICS_TOKEN`: `/metrics` answers any client with it; without it, loopback clients only. */
  metricsToken?: string;
  /** `VERBATIM_MCP_ALLOWED_ORIGINS`: browser origins besides this server's own that may use `POST /mcp`. */
  mcpAllowedOrigins?: readonly string[];
  /** How long the body of an operation without a key may take to arrive; default 10 s. Tests shorten it. */
  publicBodyDeadlineMs?: number;
  /** How long the body of any other operation may take to arrive; default 60 s. Tests shorten it. */
  bodyDeadlineMs?: number;
  /** `VERBATIM_LIVE_EVENT_STREAMS`: live event streams an account may hold open on this process; default 16. */
  liveEventStreamsPerAccount?: number;
}

/** Everything `createApp` needs, given by the composition; tests build it without environment variables. */
export interface AppDeps {
  config: HttpConfig;
  logger: Logger;
  /** The clock; tests may fix it. */
  now: () => Date;
  /** The account platform: storage, keys, allowances, credits, slots, idempotency. */
  platform: Platform;
  /** This process's Prometheus metrics, fed by the code that owns each rule and served at `/metrics`. */
  metrics: ServiceMetrics;
  /** What the operations run on, built once per process by `buildServices` (assembly/services.ts). */
  services: Services;
  /** Validate every response against the OpenAPI document (on in tests; a mismatch answers 500). */
  validateResponses?: boolean;
  /** Called at each fault point a request passes: where tests make the process die (`VERBATIM_TEST_FAULTS`). */
  faultPoint?: (point: FaultPoint) => void;
}
