import type { SpeechEngine } from "../adapters/asr/index.ts";
import type { AudioSources } from "../adapters/audio-sources/audio-source.ts";
import type { ResolveAll } from "../adapters/net/address-rule.ts";
import type { PublicFetch } from "../adapters/net/public-fetch.ts";
import type { CaptionSource, VideoPageSource, YoutubeAudioSource } from "../adapters/youtube/index.ts";
import type { VideoListSource } from "../adapters/youtube/video-lists.ts";
import type { Logger } from "../logger.ts";
import { Batches } from "../services/batches/index.ts";
import { EventCursors } from "../services/cursors/index.ts";
import { TranscriptStore } from "../services/kept/index.ts";
import { VideoLists } from "../services/lists/index.ts";
import type { LiveRunSettings } from "../services/live/index.ts";
import { LiveEndings, LiveFeed, LiveRunner, LiveSessions, LiveStore, LiveWebhooks } from "../services/live/index.ts";
import type { MonitorEvents } from "../services/monitors/index.ts";
import { Monitors } from "../services/monitors/index.ts";
import type { DependencyProbe, Platform, Services } from "../services/process-services.ts";
import { TranscriptRenderer } from "../services/renderings/index.ts";
import type { JobFollower, TranscriptionQueue } from "../services/speech/index.ts";
import { SpeechJobRunner, SpeechRecognition, TranscriptJobs } from "../services/speech/index.ts";
import {
  AudioTranscripts,
  CaptionLanguageLists,
  Transcripts,
  VideoMetadataReader,
} from "../services/transcripts/index.ts";
import type { WebhookOutbox, WebhookTargetRule } from "../services/webhooks/index.ts";
import { createSourceRegistry, type PlatformSources, type SourceRegistry } from "../sources/index.ts";
import { ListingRegistry } from "../sources/listing-registry.ts";
import type { ListingSource } from "../sources/listing-source.ts";
import type { LiveSources } from "../sources/live/index.ts";
import { YoutubeListings } from "../sources/youtube/youtube-listings.ts";

/** What the services of a process are built from: the account platform, and the adapters configured (or a test's). */
export interface ServiceParts {
  platform: Platform;
  /** The clock; tests may fix it. */
  now: () => Date;
  logger: Logger;
  /** YouTube access; without it the YouTube operations answer 404 as not live yet. */
  youtube?: YoutubeDeps;
  /** Podcasts, feeds and media files, and speech recognition jobs; without it, that input is refused as unsupported. */
  audio?: AudioDeps;
  /**
   * The listing sources besides YouTube's, in the order the listing registry asks them: the
   * catch-all feed source last. With neither these nor YouTube lists, the list operations answer
   * 404 as not live yet.
   */
  listings?: readonly ListingSource[];
  /** Monitors; without them (or without any listing source) the monitor operations answer 404 as not live yet. */
  monitors?: MonitorDeps;
  /**
   * Live sessions; without them, or with an engine that does not recognise live streams, the
   * live operations answer 404 as not live yet.
   */
  live?: LiveDeps;
}

/** What live sessions need. */
export interface LiveDeps {
  /** The speech engine; it must recognise live streams (`startLive`). */
  engine: SpeechEngine;
  /** Where sessions' webhooks go; without it they are not sent. */
  webhooks?: WebhookOutbox;
  sources: LiveSources;
  /** The public fetch streams are read through, under the public-address rule. */
  fetch: PublicFetch;
  /** The address rule a session's `webhook_url` must pass. */
  webhookTargets: WebhookTargetRule;
  settings: LiveRunSettings;
  /** How often at most a session's segments are delivered; default `defaultWebhookBatchMs`. */
  webhookBatchMs?: number;
  /** How long `DELETE /live/{id}` waits for the session's worker to end it; default the service's. */
  stopWaitMs?: number;
  /** How long a quiet event stream waits before a keep-alive comment; default the service's. */
  keepAliveMs?: number;
}

/** What the YouTube operations need. */
export interface YoutubeDeps {
  captions: CaptionSource;
  /** Channel, playlist and search lists; absent, those operations answer 404 as not live yet. */
  lists?: VideoListSource;
  /** Videos' pages, for their metadata; absent, a YouTube input of `POST /videos/metadata` is refused. */
  pages?: VideoPageSource;
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

/** What monitors need beyond YouTube lists and the transcript service. */
export interface MonitorDeps {
  /** Where monitor events are written and delivered from; also told when a monitor's speech job finishes. */
  events: MonitorEvents;
  /** The address rule a monitor's `webhook_url` must pass. */
  webhookTargets: WebhookTargetRule;
  /** The base of `error.docs` links in what scheduled checks record; a check a request asks for uses the request's. */
  docsBaseUrl: string;
  /** How long a worker holds a due check or transcript it claimed (`VERBATIM_MONITOR_CLAIM_SECONDS`); default the service's. */
  claimSeconds?: number;
  /** 0 (inclusive) to 1: where a check lands in its jitter window. Default `Math.random`. */
  random?: () => number;
}

/** The services of one process: what its operations run on, and what its transcription workers run. */
export interface ProcessServices extends Services {
  /** The one way to a transcript, whatever the input; absent without any source. */
  audioTranscripts?: AudioTranscripts;
  /** Speech recognition as requests ask it; absent without `audio`. */
  speechRecognition?: SpeechRecognition;
  /** What the transcription workers run: one attempt of a queued job; absent without `audio`. */
  speechJobs?: SpeechJobRunner;
  /** What the live workers run: the sessions' rows, and the run of one session; absent without live sessions. */
  liveWork?: { store: LiveStore; runner: LiveRunner; feed: LiveFeed };
}

/**
 * Builds the services of a process once, from its platform and adapters: the API's operations,
 * the transcription workers and the scheduler all run on these, so a job finishes with the same
 * followers (the library, the monitors) wherever it was accepted or run.
 */
export function buildServices(parts: ServiceParts & { audio: AudioDeps }): ProcessServices & {
  audioTranscripts: AudioTranscripts;
  speechRecognition: SpeechRecognition;
  speechJobs: SpeechJobRunner;
};
export function buildServices(parts: ServiceParts): ProcessServices;
export function buildServices(parts: ServiceParts): ProcessServices {
  const { platform, now, logger, youtube, audio, monitors } = parts;
  const { store, credits, library } = platform;
  const sources = createSourceRegistry({
    ...(youtube
      ? {
          youtube: {
            captions: youtube.captions,
            ...(audio?.youtube ? { audio: audio.youtube } : {}),
            ...(youtube.pages ? { pages: youtube.pages } : {}),
          },
        }
      : {}),
    ...(audio?.platforms ? { platforms: audio.platforms.registry } : {}),
    ...(audio ? { web: audio.sources } : {}),
  });
  const listingSources = [...(youtube?.lists ? [new YoutubeListings(youtube.lists)] : []), ...(parts.listings ?? [])];
  const listings = listingSources.length > 0 ? new ListingRegistry(listingSources) : undefined;
  const kept = new TranscriptStore(store, now);
  const speech = audio ? speechServices(platform, audio, { sources, kept, now, logger }) : undefined;
  const audioTranscripts =
    youtube || audio
      ? new AudioTranscripts({ sources, store: kept, credits, ...(speech ? { speech: speech.recognition } : {}) })
      : undefined;
  const transcripts = audioTranscripts
    ? new Transcripts({ audio: audioTranscripts, sources, library, logger })
    : undefined;
  return {
    ...(transcripts
      ? {
          transcripts,
          batches: new Batches(transcripts, credits, logger),
          captionLanguages: new CaptionLanguageLists(sources),
          metadata: new VideoMetadataReader({ credits, sources }),
        }
      : {}),
    ...(audioTranscripts ? { audioTranscripts } : {}),
    ...(speech
      ? {
          speechRecognition: speech.recognition,
          speechJobs: speech.runner,
          jobs: speech.jobs,
          callbackTargets: speech.callbackTargets,
        }
      : {}),
    ...(listings ? { lists: new VideoLists(listings, platform.listCursors) } : {}),
    ...(listings && monitors && transcripts
      ? {
          monitors: new Monitors({
            store,
            accounts: platform.accounts,
            credits,
            listings,
            transcripts,
            events: monitors.events,
            cursors: new EventCursors(store, now),
            webhookTargets: monitors.webhookTargets,
            now,
            logger,
            docsBaseUrl: monitors.docsBaseUrl,
            ...(monitors.random ? { random: monitors.random } : {}),
            ...(monitors.claimSeconds === undefined ? {} : { claimSeconds: monitors.claimSeconds }),
          }),
        }
      : {}),
    links: sources,
    ...(parts.live?.engine.startLive ? liveServices(platform, parts.live, { now, logger }) : {}),
    probes: audio ? dependencyProbes(audio) : [],
    renderer: new TranscriptRenderer(),
  };
}

/** Live sessions as the API serves them, and what the workers run them with, on one store and one feed. */
function liveServices(
  platform: Platform,
  live: LiveDeps,
  options: { now: () => Date; logger: Logger },
): Required<Pick<ProcessServices, "live" | "liveWork">> {
  const { store, credits, library } = platform;
  const feed = new LiveFeed(store, options.logger);
  const sessions = new LiveStore(store, feed, options.now);
  const webhooks = new LiveWebhooks(live.webhooks, options.now, live.webhookBatchMs);
  const endings = new LiveEndings(sessions, library, webhooks, () => live.engine.info, options.now);
  return {
    live: new LiveSessions({
      store,
      sessions,
      feed,
      endings,
      sources: live.sources,
      credits,
      cursors: new EventCursors(store, options.now),
      webhookTargets: live.webhookTargets,
      engineLanguage: live.engine.info.language,
      now: options.now,
      ...(live.stopWaitMs === undefined ? {} : { stopWaitMs: live.stopWaitMs }),
      ...(live.keepAliveMs === undefined ? {} : { keepAliveMs: live.keepAliveMs }),
    }),
    liveWork: {
      store: sessions,
      feed,
      runner: new LiveRunner({
        sessions,
        endings,
        webhooks,
        sources: live.sources,
        engine: live.engine,
        fetch: live.fetch,
        credits,
        now: options.now,
        logger: options.logger,
        settings: live.settings,
      }),
    },
  };
}

/**
 * Speech recognition, its jobs (a job that finishes tells the library and the work waiting on
 * it), and the rule their callbacks must pass.
 */
function speechServices(
  platform: Platform,
  audio: AudioDeps,
  options: { sources: SourceRegistry; kept: TranscriptStore; now: () => Date; logger: Logger },
): { recognition: SpeechRecognition; runner: SpeechJobRunner } & Required<
  Pick<ProcessServices, "jobs" | "callbackTargets">
> {
  const jobs = new TranscriptJobs(platform.store, platform.credits, options.kept, options.now, audio.webhooks, [
    platform.library,
    ...(audio.jobFollowers ?? []),
  ]);
  const recognition = new SpeechRecognition({
    store: options.kept,
    credits: platform.credits,
    jobs,
    engine: audio.engine,
    queue: audio.queue,
    logger: options.logger,
    inlineAudioSeconds: audio.inlineAudioSeconds,
    maxQueuedJobs: audio.maxQueuedJobs,
  });
  const callbackTargets = {
    allowPrivateTargets: audio.allowPrivateCallbackTargets ?? false,
    ...(audio.resolveAll ? { resolveAll: audio.resolveAll } : {}),
  };
  const runner = new SpeechJobRunner({ sources: options.sources, jobs, engine: audio.engine, logger: options.logger });
  return { recognition, runner, jobs, callbackTargets };
}

/** The dependencies of speech recognition the deep health check asks, besides the database. */
function dependencyProbes(audio: AudioDeps): DependencyProbe[] {
  const { platforms } = audio;
  return [
    { name: "queue", check: () => audio.queue.check() },
    { name: "speech_engine", check: () => audio.engine.check() },
    ...(platforms ? [{ name: "video_platforms" as const, check: () => platforms.check() }] : []),
  ];
}
