import type { SpeechEngine } from "./adapters/asr/index.ts";
import type { AudioSources } from "./adapters/audio-sources/audio-source.ts";
import type { ResolveAll } from "./adapters/net/address-rule.ts";
import type { CaptionSource, YoutubeAudioSource } from "./adapters/youtube/index.ts";
import type { VideoListSource } from "./adapters/youtube/video-lists.ts";
import type { FaultPoint } from "./config.ts";
import type { Logger } from "./logger.ts";
import type { ServiceMetrics } from "./metrics.ts";
import type { Platform } from "./platform.ts";
import type { TranscriptionQueue } from "./services/audio-transcripts.ts";
import type { MonitorEvents } from "./services/monitor-events.ts";
import type { JobFollower } from "./services/transcript-jobs.ts";
import type { WebhookOutbox } from "./services/webhook-events.ts";
import type { WebhookTargetRule } from "./services/webhook-targets.ts";
import type { PlatformSources } from "./sources/index.ts";

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
  /** YouTube access; without it the YouTube operations answer 404 as not live yet. */
  youtube?: YoutubeDeps;
  /** Podcasts, feeds and media files, and speech recognition jobs; without it, that input is refused as unsupported. */
  audio?: AudioDeps;
  /** Monitors; without them (or without YouTube lists) the monitor operations answer 404 as not live yet. */
  monitors?: MonitorDeps;
  /** Validate every response against the OpenAPI document (on in tests; a mismatch answers 500). */
  validateResponses?: boolean;
  /** Called at each fault point a request passes: where tests make the process die (`VERBATIM_TEST_FAULTS`). */
  faultPoint?: (point: FaultPoint) => void;
}

/** What monitors need beyond YouTube lists and the transcript service. */
export interface MonitorDeps {
  /** Where monitor events are written and delivered from; also told when a monitor's speech job finishes. */
  events: MonitorEvents;
  /** The address rule a monitor's `webhook_url` must pass. */
  webhookTargets: WebhookTargetRule;
  /** 0 (inclusive) to 1: where a check lands in its jitter window. Default `Math.random`. */
  random?: () => number;
}

/** What the YouTube operations need. */
export interface YoutubeDeps {
  captions: CaptionSource;
  /** Channel, playlist and search lists; absent, those operations answer 404 as not live yet. */
  lists?: VideoListSource;
}

/** What audio transcripts and their jobs need. */
export interface AudioDeps {
  sources: AudioSources;
  /** YouTube videos' audio, for `mode: "audio"` and the `auto` fallback; absent, YouTube audio is refused. */
  youtube?: YoutubeAudioSource;
  /** The other video platforms (TikTok, Instagram, X, Vimeo, …); absent, their links are refused as unsupported. */
  platforms?: Pick<PlatformSources, "registry" | "check">;
  engine: SpeechEngine;
  /** Where accepted jobs go; the workers may run in this process or in others on the same database. */
  queue: TranscriptionQueue;
  /** Media shorter than this is transcribed within the request (200); 0 makes every transcription a job. */
  inlineAudioSeconds: number;
  /** Unfinished jobs beyond which new ones are refused with 503 `overloaded`. */
  maxQueuedJobs: number;
  /** Job callbacks (`callback_url`); without it they are not sent. */
  webhooks?: WebhookOutbox;
  /** Work waiting on jobs' outcomes (monitors' transcripts), told when a job finishes. */
  jobFollowers?: readonly JobFollower[];
  /** `VERBATIM_ALLOW_PRIVATE_TARGETS=1`: a `callback_url` may be http or name a private address. */
  allowPrivateCallbackTargets?: boolean;
  /** Resolves a `callback_url`'s host at request time; default `dns.lookup`. Tests substitute it. */
  resolveAll?: ResolveAll;
}
