import type { CaptionSource } from "./adapters/youtube/index.ts";
import type { Logger } from "./logger.ts";
import type { Platform } from "./platform.ts";
import type { SpeechFallback } from "./services/video-transcripts.ts";

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
  /** YouTube access; without it the YouTube operations answer 404 as not live yet. */
  youtube?: YoutubeDeps;
  /** Validate every response against the OpenAPI document (on in tests; a mismatch answers 500). */
  validateResponses?: boolean;
}

/** What the YouTube operations need. */
export interface YoutubeDeps {
  captions: CaptionSource;
  /** Speech recognition of a video's audio (the audio issue); absent, `mode: "audio"` is refused. */
  speech?: SpeechFallback;
}
