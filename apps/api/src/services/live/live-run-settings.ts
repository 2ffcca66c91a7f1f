import type { SpeechEngine } from "../../adapters/asr/index.ts";
import type { PublicFetch } from "../../adapters/net/public-fetch.ts";
import type { Logger } from "../../logger.ts";
import type { LiveSources } from "../../sources/live/index.ts";
import type { Credits } from "../accounts/index.ts";
import type { LiveEndings } from "./live-endings.ts";
import type { LiveStore } from "./live-store.ts";
import type { LiveWebhooks } from "./live-webhooks.ts";

/** How a worker reads and recognises streams (`VERBATIM_LIVE_*`). */
export interface LiveRunSettings {
  /** Milliseconds without new media after which a stream is over. */
  silenceMs: number;
  /** Bytes a stream may bring per minute of media. */
  maxBytesPerMinute: number;
  /** The least time between two stored partials of a session, in milliseconds; default 500. */
  partialIntervalMs?: number;
  /** The shortest wait between two reads of a playlist; default the reader's. */
  minPollMs?: number;
  /** How soon an announced broadcast that has not started is looked at again at the earliest; default 30 s. */
  waitingRecheckMs?: number;
}

export interface LiveRunnerOptions {
  sessions: LiveStore;
  endings: LiveEndings;
  webhooks: LiveWebhooks;
  sources: LiveSources;
  engine: SpeechEngine;
  /** The public fetch the streams are read through, under the public-address rule. */
  fetch: PublicFetch;
  credits: Credits;
  now: () => Date;
  logger: Logger;
  settings: LiveRunSettings;
}

/** What the worker tells a run of the lease it holds. */
export interface LiveLease {
  owner: string;
  /** Aborts when the lease is lost or the worker stops: the run stops at once and writes nothing more. */
  signal: AbortSignal;
  /** Aborts when `DELETE /live/{id}` asked the session to stop: the run ends it as `stopped`. */
  stopRequested: AbortSignal;
}
