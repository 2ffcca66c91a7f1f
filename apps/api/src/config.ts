import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { SpeechEngineConfig } from "./adapters/asr/index.ts";
import {
  DEFAULT_ACTIVE_PATHS,
  DEFAULT_DECODING,
  DEFAULT_MODEL_DIR,
  type SherpaDecoding,
} from "./adapters/asr/sherpa-onnx-speech-engine.ts";
import { caCertificatesFrom } from "./adapters/net/ca-certificates.ts";
import type { DownloadLimits } from "./adapters/net/media-download.ts";
import type { YoutubeAdapterConfig } from "./adapters/youtube/index.ts";
import { type FaultPoint, faultPoints } from "./http/app-deps.ts";
import { defaultEventStreamsPerAccount } from "./http/open-event-streams.ts";
import { defaultInFlightSeconds } from "./services/accounts/index.ts";
import { retryDelaysMsFrom } from "./services/webhooks/index.ts";
import type { SpotifyCredentials } from "./sources/spotify/spotify-web-api.ts";
import { findYtdlp, type YtdlpEngine } from "./sources/ytdlp/find-ytdlp.ts";
import { defaultYtdlpExtractors } from "./sources/ytdlp/ytdlp-extractors.ts";
import { defaultYtdlpAccountConcurrency, defaultYtdlpConcurrency } from "./sources/ytdlp/ytdlp-sidecar.ts";

declare global {
  interface ImportMeta {
    /**
     * True in the bundle tsup builds for deployments (tsup.config.ts), which then holds no fault
     * point: `VERBATIM_TEST_FAULTS` works only in the sources the tests run.
     */
    readonly withoutTestFaults?: boolean;
  }
}

/** The service's configuration, read from the environment once, at start-up. */
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** A PostgreSQL server for the distributed deployment; without it the embedded PGlite in `dataDir` is used. */
  databaseUrl: string | undefined;
  publicUrl: string | undefined;
  /** `VERBATIM_MCP_ALLOWED_ORIGINS`: browser origins besides this server's own that may use `POST /mcp`. */
  mcpAllowedOrigins: string[];
  /** `VERBATIM_BATCH_DEADLINE_SECONDS`: how long a batch runs before it answers with the rows it has. */
  batchDeadlineSeconds: number;
  version: string;
  logLevel: string;
  /**
   * How YouTube is reached: `VERBATIM_YOUTUBE_ORIGIN`, `VERBATIM_YOUTUBE_MEDIA_ORIGIN`, `VERBATIM_PROXY_URLS`,
   * `VERBATIM_UPSTREAM_TIMEOUT_MS`, `VERBATIM_UPSTREAM_BUDGET_MS`; audio streams obey the download limits.
   */
  youtube: YoutubeAdapterConfig;
  /**
   * The other video platforms, read through yt-dlp: `VERBATIM_YTDLP`, `VERBATIM_YTDLP_EXTRACTORS`,
   * `VERBATIM_YTDLP_CONCURRENCY`, `VERBATIM_YTDLP_ACCOUNT_CONCURRENCY`, `VERBATIM_CA_FILE`; they go
   * out through `VERBATIM_PROXY_URLS` as YouTube does.
   */
  platforms: PlatformsConfig;
  /**
   * Spotify's Web API, which reads a Spotify episode's show, title and date when the operator set
   * `VERBATIM_SPOTIFY_CLIENT_ID` and `VERBATIM_SPOTIFY_CLIENT_SECRET`; null reads its public page.
   */
  spotify: SpotifyCredentials | null;
  /** How webhooks are delivered: `VERBATIM_WEBHOOK_RETRY_SCHEDULE`. */
  webhooks: WebhookConfig;
  /**
   * `VERBATIM_ALLOW_PRIVATE_TARGETS=1`: feeds, pages, media and webhook targets on private,
   * loopback, link-local and other non-public addresses are fetched, and webhooks admit http.
   * For tests and private deployments; off by default, since users choose these addresses.
   */
  allowPrivateTargets: boolean;
  /** Media download limits: `VERBATIM_DOWNLOAD_MAX_BYTES` (default 2 GiB), `VERBATIM_DOWNLOAD_TIMEOUT_MS` (default 30 min). */
  downloads: DownloadLimits;
  /** Speech recognition jobs: `VERBATIM_ROLE`, `VERBATIM_WORKERS`, `VERBATIM_INLINE_AUDIO_SECONDS`, `VERBATIM_MAX_QUEUED_JOBS`, `VERBATIM_JOB_POLL_SECONDS`, `VERBATIM_JOB_HEARTBEAT_SECONDS`. */
  jobs: JobsConfig;
  /** The worker role's scheduled work: `VERBATIM_SCHEDULER_TICK_SECONDS`, `VERBATIM_MONITOR_CLAIM_SECONDS`. */
  scheduler: SchedulerConfig;
  /**
   * Live sessions: `VERBATIM_LIVE_SESSIONS`, `VERBATIM_LIVE_LEASE_SECONDS`, `VERBATIM_LIVE_SILENCE_SECONDS`,
   * `VERBATIM_LIVE_MAX_BYTES_PER_MINUTE`.
   */
  live: LiveConfig;
  /** `/metrics` and shutdown: `VERBATIM_METRICS_TOKEN`, `VERBATIM_METRICS_PORT`, `VERBATIM_SHUTDOWN_GRACE_SECONDS`. */
  operations: OperationsConfig;
  /**
   * `VERBATIM_IDEMPOTENCY_LOCK_SECONDS`: how long the key of a request whose process died stays
   * locked; a running request renews it.
   */
  idempotencyLockSeconds: number;
  /** `VERBATIM_TEST_FAULTS`: points where the process dies as a crash would, for tests only; none in the deployed bundle. */
  testFaults: FaultPoint[];
  /** The speech engine: `VERBATIM_ASR_ENGINE` and the settings of the engine it names (`speechEngineConfigFrom`). */
  speech: SpeechEngineConfig;
}

export interface PlatformsConfig {
  /** yt-dlp: `VERBATIM_YTDLP`, else the project's copy (apps/api/.ytdlp); null when neither is there. */
  ytdlp: YtdlpEngine | null;
  /** `VERBATIM_YTDLP_EXTRACTORS`: the yt-dlp extractors allowed, comma-separated; never `Generic`. */
  extractors: readonly string[];
  /** `VERBATIM_YTDLP_CONCURRENCY`: yt-dlp calls a process runs at once; default 8. */
  ytdlpConcurrency: number;
  /**
   * `VERBATIM_YTDLP_ACCOUNT_CONCURRENCY`: yt-dlp calls of one account a process runs at once, so
   * that one account never holds them all; default a quarter of `ytdlpConcurrency`, at least 1.
   */
  ytdlpAccountConcurrency: number;
  /** `VERBATIM_CA_FILE`: extra certificate authorities trusted by every upstream TLS connection. */
  caFile?: string;
  /** Its certificates, read once at start-up. */
  ca?: readonly string[];
}

export interface OperationsConfig {
  /** When set, `/metrics` answers any client that sends it as a bearer token; unset, only loopback clients. */
  metricsToken: string | undefined;
  /** Where a worker-only process serves `/metrics`; unset, it serves none (API processes serve it on their port). */
  metricsPort: number | undefined;
  /** How long a stopping process lets requests in flight and running jobs finish before cutting them off. */
  shutdownGraceSeconds: number;
}

export interface SchedulerConfig {
  /** How often due monitor checks and refills are looked for. */
  tickSeconds: number;
  /** How long a monitor check in progress holds its monitor: a worker that died frees it then. */
  claimSeconds: number;
}

/** What this process runs: the HTTP API, the job workers, or both (the default, embedded deployment). */
export type ProcessRole = "api" | "worker" | "all";

export interface JobsConfig {
  role: ProcessRole;
  /** Jobs this process transcribes at once. */
  workers: number;
  /** Media shorter than this is transcribed within the request (200); 0 makes every transcription a job. */
  inlineAudioSeconds: number;
  /** Unfinished jobs beyond which new ones are refused with 503 `overloaded`. */
  maxQueuedJobs: number;
  /** How often an idle worker looks for a job. */
  pollSeconds: number;
  /** A worker that has not reported for this long is presumed dead and its job retried (pg-boss allows 10 at least). */
  heartbeatSeconds: number;
}

export interface LiveConfig {
  /** Live sessions a worker process runs at once; default 4 (a session takes about 3 % of a core). */
  sessions: number;
  /** Seconds a worker's lease on a session lives without renewal; another worker takes the session over after. */
  leaseSeconds: number;
  /** Seconds without new media after which a stream is over. */
  silenceSeconds: number;
  /** Bytes a session may read per minute of media; a stream is not a download, so it has no byte cap. */
  maxBytesPerMinute: number;
  /** Event streams an account may hold open on one API process. */
  eventStreamsPerAccount: number;
}

export interface WebhookConfig {
  /** Milliseconds to wait before each retry of a failed attempt; after the last, the delivery fails. */
  retryDelaysMs: number[];
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
    mcpAllowedOrigins: originsFrom("VERBATIM_MCP_ALLOWED_ORIGINS", env.VERBATIM_MCP_ALLOWED_ORIGINS),
    batchDeadlineSeconds: numberFrom("VERBATIM_BATCH_DEADLINE_SECONDS", env.VERBATIM_BATCH_DEADLINE_SECONDS, 60, {
      min: 1,
    }),
    version: serviceVersion,
    logLevel: env.VERBATIM_LOG_LEVEL ?? "info",
    youtube: { ...youtubeConfigFrom(env), ...downloadLimitsFrom(env) },
    platforms: platformsConfigFrom(env),
    spotify: spotifyCredentialsFrom(env),
    webhooks: { retryDelaysMs: retryDelaysMsFrom(env.VERBATIM_WEBHOOK_RETRY_SCHEDULE) },
    allowPrivateTargets: switchFrom("VERBATIM_ALLOW_PRIVATE_TARGETS", env.VERBATIM_ALLOW_PRIVATE_TARGETS),
    downloads: downloadLimitsFrom(env),
    jobs: jobsConfigFrom(env),
    live: liveConfigFrom(env),
    scheduler: {
      tickSeconds: numberFrom("VERBATIM_SCHEDULER_TICK_SECONDS", env.VERBATIM_SCHEDULER_TICK_SECONDS, 5, { min: 0.1 }),
      claimSeconds: numberFrom("VERBATIM_MONITOR_CLAIM_SECONDS", env.VERBATIM_MONITOR_CLAIM_SECONDS, 600, {
        min: 1,
        integer: true,
      }),
    },
    idempotencyLockSeconds: numberFrom(
      "VERBATIM_IDEMPOTENCY_LOCK_SECONDS",
      env.VERBATIM_IDEMPOTENCY_LOCK_SECONDS,
      defaultInFlightSeconds,
      {
        min: 1,
      },
    ),
    testFaults: import.meta.withoutTestFaults ? [] : faultPointsFrom(env.VERBATIM_TEST_FAULTS),
    speech: speechEngineConfigFrom(env),
    operations: {
      metricsToken: env.VERBATIM_METRICS_TOKEN || undefined,
      metricsPort: env.VERBATIM_METRICS_PORT ? portFrom(env.VERBATIM_METRICS_PORT, "VERBATIM_METRICS_PORT") : undefined,
      shutdownGraceSeconds: numberFrom("VERBATIM_SHUTDOWN_GRACE_SECONDS", env.VERBATIM_SHUTDOWN_GRACE_SECONDS, 20, {
        min: 0,
      }),
    },
  };
}

/** Spotify's Web API credentials: both variables or neither. */
export function spotifyCredentialsFrom(env: NodeJS.ProcessEnv): SpotifyCredentials | null {
  const clientId = env.VERBATIM_SPOTIFY_CLIENT_ID?.trim() ?? "";
  const clientSecret = env.VERBATIM_SPOTIFY_CLIENT_SECRET?.trim() ?? "";
  if (clientId === "" && clientSecret === "") return null;
  if (clientId === "" || clientSecret === "") {
    throw new Error(
      "VERBATIM_SPOTIFY_CLIENT_ID and VERBATIM_SPOTIFY_CLIENT_SECRET go together: set both (a Spotify app's id and secret) or neither",
    );
  }
  return { clientId, clientSecret };
}

/** The job settings; unset values take the defaults of the embedded deployment. */
export function jobsConfigFrom(env: NodeJS.ProcessEnv): JobsConfig {
  const role = env.VERBATIM_ROLE || "all";
  if (role !== "api" && role !== "worker" && role !== "all") {
    throw new Error(`VERBATIM_ROLE must be api, worker or all, not ${JSON.stringify(role)}`);
  }
  const heartbeatSeconds = numberFrom("VERBATIM_JOB_HEARTBEAT_SECONDS", env.VERBATIM_JOB_HEARTBEAT_SECONDS, 30, {
    min: 10,
    integer: true,
  });
  return {
    role,
    workers: numberFrom("VERBATIM_WORKERS", env.VERBATIM_WORKERS, 2, { min: 1, integer: true }),
    inlineAudioSeconds: numberFrom("VERBATIM_INLINE_AUDIO_SECONDS", env.VERBATIM_INLINE_AUDIO_SECONDS, 30, { min: 0 }),
    maxQueuedJobs: numberFrom("VERBATIM_MAX_QUEUED_JOBS", env.VERBATIM_MAX_QUEUED_JOBS, 1000, {
      min: 1,
      integer: true,
    }),
    // A worker that finishes a job waits out the rest of its poll interval before the next: keep it short.
    pollSeconds: numberFrom("VERBATIM_JOB_POLL_SECONDS", env.VERBATIM_JOB_POLL_SECONDS, 0.5, { min: 0.5 }),
    heartbeatSeconds,
  };
}

/** The live session settings; unset values take their defaults. */
export function liveConfigFrom(env: NodeJS.ProcessEnv): LiveConfig {
  return {
    sessions: numberFrom("VERBATIM_LIVE_SESSIONS", env.VERBATIM_LIVE_SESSIONS, 4, { min: 0, integer: true }),
    leaseSeconds: numberFrom("VERBATIM_LIVE_LEASE_SECONDS", env.VERBATIM_LIVE_LEASE_SECONDS, 15, { min: 1 }),
    silenceSeconds: numberFrom("VERBATIM_LIVE_SILENCE_SECONDS", env.VERBATIM_LIVE_SILENCE_SECONDS, 60, { min: 1 }),
    maxBytesPerMinute: numberFrom(
      "VERBATIM_LIVE_MAX_BYTES_PER_MINUTE",
      env.VERBATIM_LIVE_MAX_BYTES_PER_MINUTE,
      32 * 1024 * 1024,
      { min: 1024, integer: true },
    ),
    eventStreamsPerAccount: numberFrom(
      "VERBATIM_LIVE_EVENT_STREAMS",
      env.VERBATIM_LIVE_EVENT_STREAMS,
      defaultEventStreamsPerAccount,
      { min: 1, integer: true },
    ),
  };
}

function numberFrom(
  name: string,
  value: string | undefined,
  fallback: number,
  rule: { min: number; integer?: boolean },
): number {
  if (value === undefined || value === "") return fallback;
  const number = Number(value);
  if (!Number.isFinite(number) || number < rule.min || (rule.integer && !Number.isInteger(number))) {
    throw new Error(
      `${name} must be ${rule.integer ? "an integer" : "a number"} of at least ${rule.min}, not ${JSON.stringify(value)}`,
    );
  }
  return number;
}

/** The window over which a download's throughput is judged against its floor. */
const downloadFloorWindowSeconds = 30;

/** The media download limits; unset values keep the adapter's defaults. */
export function downloadLimitsFrom(env: NodeJS.ProcessEnv): DownloadLimits {
  const maxBytes = env.VERBATIM_DOWNLOAD_MAX_BYTES
    ? numberFrom("VERBATIM_DOWNLOAD_MAX_BYTES", env.VERBATIM_DOWNLOAD_MAX_BYTES, 0, { min: 1, integer: true })
    : undefined;
  const timeoutMs = millisecondsFrom("VERBATIM_DOWNLOAD_TIMEOUT_MS", env.VERBATIM_DOWNLOAD_TIMEOUT_MS);
  const minBytesPerSecond = env.VERBATIM_DOWNLOAD_MIN_BYTES_PER_SECOND
    ? numberFrom("VERBATIM_DOWNLOAD_MIN_BYTES_PER_SECOND", env.VERBATIM_DOWNLOAD_MIN_BYTES_PER_SECOND, 0, {
        min: 1,
        integer: true,
      })
    : undefined;
  return {
    ...(maxBytes === undefined ? {} : { downloadMaxBytes: maxBytes }),
    ...(timeoutMs === undefined ? {} : { downloadTimeoutMs: timeoutMs }),
    ...(minBytesPerSecond === undefined
      ? {}
      : { downloadFloor: { bytesPerSecond: minBytesPerSecond, windowSeconds: downloadFloorWindowSeconds } }),
  };
}

/** The comma-separated fault points of `VERBATIM_TEST_FAULTS`; an unknown one stops start-up. */
function faultPointsFrom(value: string | undefined): FaultPoint[] {
  const names = (value ?? "")
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name.length > 0);
  for (const name of names) {
    if (!faultPoints.includes(name as FaultPoint)) {
      throw new Error(`VERBATIM_TEST_FAULTS may name ${faultPoints.join(", ")}, not ${JSON.stringify(name)}`);
    }
  }
  return names as FaultPoint[];
}

/** An on/off variable: `1` or `true` is on, unset, empty, `0` or `false` off. */
function switchFrom(name: string, value: string | undefined): boolean {
  const normalized = (value ?? "").trim().toLowerCase();
  if (normalized === "1" || normalized === "true") return true;
  if (normalized === "" || normalized === "0" || normalized === "false") return false;
  throw new Error(`${name} must be 1 or 0, not ${JSON.stringify(value)}`);
}

/** The YouTube adapter's settings; unset values keep the adapter's defaults. */
export function youtubeConfigFrom(env: NodeJS.ProcessEnv): YoutubeAdapterConfig {
  const origin = env.VERBATIM_YOUTUBE_ORIGIN
    ? httpUrlFrom("VERBATIM_YOUTUBE_ORIGIN", env.VERBATIM_YOUTUBE_ORIGIN)
    : undefined;
  const mediaOrigin = env.VERBATIM_YOUTUBE_MEDIA_ORIGIN
    ? httpUrlFrom("VERBATIM_YOUTUBE_MEDIA_ORIGIN", env.VERBATIM_YOUTUBE_MEDIA_ORIGIN)
    : undefined;
  const proxyUrls = (env.VERBATIM_PROXY_URLS ?? "")
    .split(/[\s,]+/)
    .filter((value) => value.length > 0)
    .map((value) => httpUrlFrom("VERBATIM_PROXY_URLS", value));
  const attemptTimeoutMs = millisecondsFrom("VERBATIM_UPSTREAM_TIMEOUT_MS", env.VERBATIM_UPSTREAM_TIMEOUT_MS);
  const budgetMs = millisecondsFrom("VERBATIM_UPSTREAM_BUDGET_MS", env.VERBATIM_UPSTREAM_BUDGET_MS);
  return {
    ...(origin ? { origin: origin.replace(/\/+$/, "") } : {}),
    ...(mediaOrigin ? { mediaOrigin: mediaOrigin.replace(/\/+$/, "") } : {}),
    ...(proxyUrls.length > 0 ? { proxyUrls } : {}),
    ...(attemptTimeoutMs === undefined ? {} : { attemptTimeoutMs }),
    ...(budgetMs === undefined ? {} : { budgetMs }),
  };
}

/** The video platforms' settings: which yt-dlp, which of its extractors, which extra certificate authorities. */
export function platformsConfigFrom(env: NodeJS.ProcessEnv): PlatformsConfig {
  const listed = (env.VERBATIM_YTDLP_EXTRACTORS ?? "").split(/[\s,]+/).filter((entry) => entry.length > 0);
  // The generic extractor reads any page on the web: with it, every address would be a platform.
  const generic = listed.find((entry) => entry.toLowerCase() === "generic");
  if (generic)
    throw new Error(
      `VERBATIM_YTDLP_EXTRACTORS may not name ${JSON.stringify(generic)}: it would read any page on the web`,
    );
  const ca = caCertificatesFrom(env);
  const ytdlpConcurrency = numberFrom(
    "VERBATIM_YTDLP_CONCURRENCY",
    env.VERBATIM_YTDLP_CONCURRENCY,
    defaultYtdlpConcurrency,
    { min: 1, integer: true },
  );
  const ytdlpAccountConcurrency = numberFrom(
    "VERBATIM_YTDLP_ACCOUNT_CONCURRENCY",
    env.VERBATIM_YTDLP_ACCOUNT_CONCURRENCY,
    defaultYtdlpAccountConcurrency(ytdlpConcurrency),
    { min: 1, integer: true },
  );
  if (ytdlpAccountConcurrency > ytdlpConcurrency) {
    throw new Error(
      `VERBATIM_YTDLP_ACCOUNT_CONCURRENCY (${ytdlpAccountConcurrency}) must be at most VERBATIM_YTDLP_CONCURRENCY (${ytdlpConcurrency})`,
    );
  }
  return {
    ytdlp: findYtdlp(env),
    extractors: listed.length > 0 ? listed : defaultYtdlpExtractors,
    ytdlpConcurrency,
    ytdlpAccountConcurrency,
    ...(env.VERBATIM_CA_FILE ? { caFile: resolve(env.VERBATIM_CA_FILE) } : {}),
    ...(ca ? { ca } : {}),
  };
}

/** Comma- or space-separated http(s) origins (`https://app.example`, `http://localhost:6274`), each as a browser sends it. */
function originsFrom(name: string, value: string | undefined): string[] {
  return (value ?? "")
    .split(/[\s,]+/)
    .filter((entry) => entry.length > 0)
    .map((entry) => {
      const url = URL.canParse(entry) ? new URL(entry) : undefined;
      const isOrigin =
        url !== undefined &&
        (url.protocol === "http:" || url.protocol === "https:") &&
        url.username === "" &&
        url.password === "" &&
        url.pathname === "/" &&
        url.search === "" &&
        url.hash === "";
      if (!isOrigin) {
        throw new Error(`${name} must hold origins such as https://app.example, not ${JSON.stringify(entry)}`);
      }
      return url.origin;
    });
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

function portFrom(value: string | undefined, name = "PORT"): number {
  if (value === undefined || value === "") return 8080;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`${name} must be an integer from 0 to 65535, not ${JSON.stringify(value)}`);
  }
  return port;
}

/**
 * The speech engine the environment names. `VERBATIM_ASR_ENGINE` is `sherpa-onnx` (the
 * default: in-process, `VERBATIM_ASR_MODEL_DIR` or the shipped model, searched as
 * `VERBATIM_ASR_DECODING` and `VERBATIM_ASR_ACTIVE_PATHS` say) or `openai` (an
 * OpenAI-compatible server at `VERBATIM_ASR_URL` with `VERBATIM_ASR_MODEL`, default `whisper-1`,
 * `VERBATIM_ASR_API_KEY` and `VERBATIM_ASR_TIMEOUT_SECONDS` per request, default 300).
 */
export function speechEngineConfigFrom(env: NodeJS.ProcessEnv): SpeechEngineConfig {
  const engine = env.VERBATIM_ASR_ENGINE || "sherpa-onnx";
  switch (engine) {
    case "sherpa-onnx":
      return { engine, modelDir: env.VERBATIM_ASR_MODEL_DIR || DEFAULT_MODEL_DIR, decoding: sherpaDecodingFrom(env) };
    case "openai": {
      const baseUrl = env.VERBATIM_ASR_URL;
      if (!baseUrl) throw new Error("VERBATIM_ASR_ENGINE=openai needs VERBATIM_ASR_URL, the server's root URL.");
      const timeoutSeconds = Number(env.VERBATIM_ASR_TIMEOUT_SECONDS || 300);
      if (!(timeoutSeconds > 0)) throw new Error("VERBATIM_ASR_TIMEOUT_SECONDS must be a positive number of seconds.");
      return {
        engine,
        baseUrl,
        model: env.VERBATIM_ASR_MODEL || "whisper-1",
        ...(env.VERBATIM_ASR_API_KEY ? { apiKey: env.VERBATIM_ASR_API_KEY } : {}),
        timeoutMs: timeoutSeconds * 1000,
      };
    }
    default:
      throw new Error(`VERBATIM_ASR_ENGINE must be sherpa-onnx or openai, not ${engine}.`);
  }
}

/**
 * The embedded engine's search: `VERBATIM_ASR_DECODING` is `greedy_search` or `modified_beam_search`,
 * and `VERBATIM_ASR_ACTIVE_PATHS` the hypotheses beam search keeps (a positive integer). Unset,
 * they take `DEFAULT_DECODING` and `DEFAULT_ACTIVE_PATHS`; paths given with greedy search are refused, since they would do nothing.
 */
export function sherpaDecodingFrom(env: NodeJS.ProcessEnv): SherpaDecoding {
  const method = env.VERBATIM_ASR_DECODING || DEFAULT_DECODING.method;
  const paths = env.VERBATIM_ASR_ACTIVE_PATHS;
  if (method === "greedy_search") {
    if (paths) {
      throw new Error(
        `VERBATIM_ASR_ACTIVE_PATHS applies to VERBATIM_ASR_DECODING=modified_beam_search only, not greedy_search.`,
      );
    }
    return { method };
  }
  if (method !== "modified_beam_search") {
    throw new Error(
      `VERBATIM_ASR_DECODING must be greedy_search or modified_beam_search, not ${JSON.stringify(method)}.`,
    );
  }
  if (!paths) {
    return { method, activePaths: DEFAULT_ACTIVE_PATHS };
  }
  const activePaths = Number(paths);
  if (!/^\d+$/.test(paths.trim()) || !(activePaths >= 1)) {
    throw new Error(`VERBATIM_ASR_ACTIVE_PATHS must be a positive integer, not ${JSON.stringify(paths)}.`);
  }
  return { method, activePaths };
}
