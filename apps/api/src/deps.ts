import type { FaultPoint } from "./config.ts";
import type { Logger } from "./logger.ts";
import type { ServiceMetrics } from "./metrics.ts";
import type { Platform } from "./platform.ts";
import type { Batches } from "./services/batches/index.ts";
import type { MomentLinks } from "./services/library/index.ts";
import type { VideoLists } from "./services/lists/index.ts";
import type { LiveSessions } from "./services/live/index.ts";
import type { Monitors } from "./services/monitors/index.ts";
import type { TranscriptRenderer } from "./services/renderings/index.ts";
import type { TranscriptJobs } from "./services/speech/index.ts";
import type { CaptionLanguageLists, Transcripts, VideoMetadataReader } from "./services/transcripts/index.ts";
import type { WebhookTargetRule } from "./services/webhooks/index.ts";

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
}

/** Everything `createApp` needs; tests build it without environment variables. */
export interface AppDeps {
  config: HttpConfig;
  logger: Logger;
  /** The clock; tests may fix it. */
  now: () => Date;
  /** The account platform: storage, keys, allowances, credits, slots, idempotency. */
  platform: Platform;
  /** This process's Prometheus metrics, fed by the code that owns each rule and served at `/metrics`. */
  metrics: ServiceMetrics;
  /** What the operations run on, built once per process by `composeServices` (compose.ts). */
  services: Services;
  /** Validate every response against the OpenAPI document (on in tests; a mismatch answers 500). */
  validateResponses?: boolean;
  /** Called at each fault point a request passes: where tests make the process die (`VERBATIM_TEST_FAULTS`). */
  faultPoint?: (point: FaultPoint) => void;
}

/** The services behind the operations; without one, its operations answer 404 as not live yet. */
export interface Services {
  /** One transcript of any input; absent when neither YouTube nor audio sources are configured. */
  transcripts?: Transcripts;
  /** Transcripts of many inputs in one request, through `transcripts`. */
  batches?: Batches;
  /** A source's caption tracks and the languages they translate into. */
  captionLanguages?: CaptionLanguageLists;
  /** What a source says about an item: title, description, chapters, counts, caption tracks. */
  metadata?: VideoMetadataReader;
  /** Speech recognition jobs, as their owners poll them; absent without speech recognition. */
  jobs?: TranscriptJobs;
  /** The rule a `callback_url` must pass; absent without speech recognition, whose jobs are all that call back. */
  callbackTargets?: WebhookTargetRule;
  /** Pages of the lists every listing source reads: channels, profiles, feeds, playlists and searches. */
  lists?: VideoLists;
  monitors?: Monitors;
  /** Live sessions: streams transcribed as they play; absent without live sources and a streaming speech engine. */
  live?: LiveSessions;
  /** Where the library's snippets link to: the moment of an item, as the source serving its platform opens it. */
  links: MomentLinks;
  /** What the deep health check asks besides the database. */
  probes: readonly DependencyProbe[];
  /** Renders large transcripts off the event loop. */
  renderer: TranscriptRenderer;
}

/** A dependency the deep health check asks; it throws when the dependency fails. */
export interface DependencyProbe {
  name: "database" | "queue" | "speech_engine" | "video_platforms";
  check(): Promise<void>;
}
