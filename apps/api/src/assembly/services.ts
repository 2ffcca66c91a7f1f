import type { SpeechEngine } from "../adapters/asr/index.ts";
import type { AudioSources } from "../adapters/audio-sources/audio-source.ts";
import type { ResolveAll } from "../adapters/net/address-rule.ts";
import type { PublicFetch } from "../adapters/net/public-fetch.ts";
import type { YoutubeAdapter } from "../adapters/youtube/index.ts";
import type { Config } from "../config.ts";
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
import type { TranscriptionQueue } from "../services/speech/index.ts";
import { SpeechJobRunner, SpeechRecognition, TranscriptJobs } from "../services/speech/index.ts";
import {
  AudioTranscripts,
  CaptionLanguageLists,
  Transcripts,
  VideoMetadataReader,
} from "../services/transcripts/index.ts";
import type { WebhookOutbox, WebhookTargetRule } from "../services/webhooks/index.ts";
import type { ClosableFeedListings } from "../sources/feeds/index.ts";
import { createSourceRegistry, type PlatformSources, type SourceRegistry } from "../sources/index.ts";
import { ListingRegistry } from "../sources/listing-registry.ts";
import type { LiveSources } from "../sources/live/index.ts";
import { YoutubeListings } from "../sources/youtube/youtube-listings.ts";

/**
 * The adapters a process's services are built from: every one of `Adapters` in a deployment
 * (`buildAdapters`), those a test chose otherwise. Without one, the operations that need it answer
 * as on a deployment without it: 404 as not live yet, or the input refused as unsupported.
 */
export interface ServiceAdapters {
  /**
   * YouTube; without it the YouTube operations answer 404 as not live yet. Without `lists` its
   * channel, playlist and search lists do too; without `pages` a YouTube input of
   * `POST /videos/metadata` is refused; without `audio` (or without speech recognition) YouTube audio is.
   */
  youtube?: Pick<YoutubeAdapter, "captions"> & Partial<Omit<YoutubeAdapter, "captions">>;
  /**
   * Podcasts, feeds and media files; with an engine and `ServiceSettings.jobs`, speech recognition
   * and its jobs. Without them that input is refused as unsupported.
   */
  audioSources?: AudioSources;
  /** Feeds as lists, the catch-all last; with neither these nor other lists, the list operations answer 404 as not live yet. */
  feedListings?: Pick<ClosableFeedListings, "members">;
  /** The other video platforms (TikTok, Instagram, X, Vimeo, …); without them their links are refused as unsupported. */
  platformSources?: Pick<PlatformSources, "registry" | "check"> & Partial<Pick<PlatformSources, "profiles">>;
  /** The speech engine; live sessions need one that recognises live streams (`startLive`). */
  engine?: SpeechEngine;
  /** Live streams; with `liveFetch`, an engine and `ServiceSettings.live`, live sessions, else they answer 404 as not live yet. */
  liveSources?: LiveSources;
  /** The public fetch streams are read through, under the public-address rule. */
  liveFetch?: PublicFetch;
}

/** What a process's services are built from besides its adapters: its account platform and its settings. */
export interface ServiceSettings {
  platform: Platform;
  /** The clock; tests may fix it. */
  now: () => Date;
  logger: Logger;
  /**
   * `VERBATIM_ALLOW_PRIVATE_TARGETS=1`: a `callback_url`, and a monitor's or a live session's
   * `webhook_url`, may be http or name a private address.
   */
  allowPrivateTargets: boolean;
  /** Resolves those URLs' hosts at request time; default `dns.lookup`. Tests substitute it. */
  resolveAll?: ResolveAll;
  /** Where job callbacks and live sessions' webhooks go; without it they are not sent. */
  webhooks?: WebhookOutbox;
  /** Speech recognition jobs, with audio sources and an engine; without them no input is transcribed from its audio. */
  jobs?: JobSettings;
  /** Monitors; without them (or without any listing source) the monitor operations answer 404 as not live yet. */
  monitors?: MonitorSettings;
  /** Live sessions, with live sources, their fetch and an engine that recognises live streams. */
  live?: LiveSettings;
}

/** How speech recognition jobs are queued. */
export interface JobSettings {
  /** Where accepted jobs go; the workers may run in this process or in others on the same database. */
  queue: TranscriptionQueue;
  /** Media shorter than this is transcribed within the request (200); 0 makes every transcription a job. */
  inlineAudioSeconds: number;
  /** Unfinished jobs beyond which new ones are refused with 503 `overloaded`. */
  maxQueuedJobs: number;
}

/** What monitors need beyond their listing sources and the transcript service. */
export interface MonitorSettings {
  /** Where monitor events are written and delivered from; also told when a speech job finishes, since a monitor's may. */
  events: MonitorEvents;
  /** The base of `error.docs` links in what scheduled checks record; a check a request asks for uses the request's. */
  docsBaseUrl: string;
  /** How long a worker holds a due check or transcript it claimed (`VERBATIM_MONITOR_CLAIM_SECONDS`); default the service's. */
  claimSeconds?: number;
  /** 0 (inclusive) to 1: where a check lands in its jitter window. Default `Math.random`. */
  random?: () => number;
}

/** How live sessions run. */
export interface LiveSettings extends LiveRunSettings {
  /** How often at most a session's segments are delivered; default `defaultWebhookBatchMs`. */
  webhookBatchMs?: number;
  /** How long `DELETE /live/{id}` waits for the session's worker to end it; default the service's. */
  stopWaitMs?: number;
  /** How long a quiet event stream waits before a keep-alive comment; default the service's. */
  keepAliveMs?: number;
}

/** What speech recognition and its jobs are built from, once audio sources, an engine and job settings are all there. */
interface SpeechParts {
  sources: AudioSources;
  engine: SpeechEngine;
  jobs: JobSettings;
}

/** The services of one process: what its operations run on, and what its transcription workers run. */
export interface ProcessServices extends Services {
  /** The one way to a transcript, whatever the input; absent without any source. */
  audioTranscripts?: AudioTranscripts;
  /** Speech recognition as requests ask it; absent without audio sources, an engine and job settings. */
  speechRecognition?: SpeechRecognition;
  /** What the transcription workers run: one attempt of a queued job; absent without speech recognition. */
  speechJobs?: SpeechJobRunner;
  /** What the live workers run: the sessions' rows, and the run of one session; absent without live sessions. */
  liveWork?: { store: LiveStore; runner: LiveRunner; feed: LiveFeed };
}

/**
 * Builds the services of a process once, from its adapters and settings: the API's operations,
 * the transcription workers and the scheduler all run on these, so a job finishes with the same
 * followers (the library, the monitors) wherever it was accepted or run. `main.ts`, the test
 * harnesses and the benches all build them here.
 */
export function buildServices(
  adapters: ServiceAdapters & Required<Pick<ServiceAdapters, "audioSources" | "engine">>,
  settings: ServiceSettings & Required<Pick<ServiceSettings, "jobs">>,
): ProcessServices & Required<Pick<ProcessServices, "audioTranscripts" | "speechRecognition" | "speechJobs">>;
export function buildServices(adapters: ServiceAdapters, settings: ServiceSettings): ProcessServices;
export function buildServices(adapters: ServiceAdapters, settings: ServiceSettings): ProcessServices {
  const { platform, now, logger, monitors } = settings;
  const { store, credits, library } = platform;
  const { youtube, audioSources, engine, platformSources } = adapters;
  const speech =
    audioSources && engine && settings.jobs ? { sources: audioSources, engine, jobs: settings.jobs } : undefined;
  const sources = createSourceRegistry({
    ...(youtube
      ? {
          youtube: {
            captions: youtube.captions,
            ...(speech && youtube.audio ? { audio: youtube.audio } : {}),
            ...(youtube.pages ? { pages: youtube.pages } : {}),
          },
        }
      : {}),
    ...(platformSources ? { platforms: platformSources.registry } : {}),
    ...(audioSources ? { web: audioSources } : {}),
  });
  // Profiles before feeds: the feed source reads any address the others leave.
  const listingSources = [
    ...(youtube?.lists ? [new YoutubeListings(youtube.lists)] : []),
    ...(platformSources?.profiles ? [platformSources.profiles] : []),
    ...(adapters.feedListings?.members ?? []),
  ];
  const listings = listingSources.length > 0 ? new ListingRegistry(listingSources) : undefined;
  const kept = new TranscriptStore(store, now);
  const recognition = speech ? speechServices(settings, speech, { sources, kept }) : undefined;
  const audioTranscripts =
    youtube || audioSources
      ? new AudioTranscripts({
          sources,
          store: kept,
          credits,
          ...(recognition ? { speech: recognition.recognition } : {}),
        })
      : undefined;
  const transcripts = audioTranscripts
    ? new Transcripts({ audio: audioTranscripts, sources, library, logger })
    : undefined;
  const webhookTargets = {
    allowPrivateTargets: settings.allowPrivateTargets,
    ...(settings.resolveAll ? { resolveAll: settings.resolveAll } : {}),
  };
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
    ...(recognition
      ? {
          speechRecognition: recognition.recognition,
          speechJobs: recognition.runner,
          jobs: recognition.jobs,
          callbackTargets: webhookTargets,
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
            webhookTargets,
            now,
            logger,
            docsBaseUrl: monitors.docsBaseUrl,
            ...(monitors.random ? { random: monitors.random } : {}),
            ...(monitors.claimSeconds === undefined ? {} : { claimSeconds: monitors.claimSeconds }),
          }),
        }
      : {}),
    links: sources,
    ...(settings.live && engine?.startLive && adapters.liveSources && adapters.liveFetch
      ? liveServices(settings, {
          live: settings.live,
          engine,
          sources: adapters.liveSources,
          fetch: adapters.liveFetch,
          webhookTargets,
        })
      : {}),
    probes: speech ? dependencyProbes(speech, platformSources) : [],
    renderer: new TranscriptRenderer(),
  };
}

/** A deployment's service settings: its configuration's, on the platform, queue and outbox the process opened. */
export function serviceSettingsFrom(
  config: Config,
  opened: Pick<ServiceSettings, "platform" | "now" | "logger"> & {
    queue: TranscriptionQueue;
    webhooks: WebhookOutbox;
    monitorEvents: MonitorEvents;
  },
): ServiceSettings & Required<Pick<ServiceSettings, "jobs">> {
  const { platform, now, logger, queue, webhooks, monitorEvents } = opened;
  return {
    platform,
    now,
    logger,
    allowPrivateTargets: config.allowPrivateTargets,
    webhooks,
    jobs: { queue, inlineAudioSeconds: config.jobs.inlineAudioSeconds, maxQueuedJobs: config.jobs.maxQueuedJobs },
    monitors: {
      events: monitorEvents,
      // Scheduled checks have no request to take the address from: the public one, else where the API listens.
      docsBaseUrl: config.publicUrl ?? `http://${config.host}:${config.port}`,
      claimSeconds: config.scheduler.claimSeconds,
    },
    live: { silenceMs: config.live.silenceSeconds * 1000, maxBytesPerMinute: config.live.maxBytesPerMinute },
  };
}

/** Live sessions as the API serves them, and what the workers run them with, on one store and one feed. */
function liveServices(
  settings: ServiceSettings,
  parts: {
    live: LiveSettings;
    engine: SpeechEngine;
    sources: LiveSources;
    fetch: PublicFetch;
    webhookTargets: WebhookTargetRule;
  },
): Required<Pick<ProcessServices, "live" | "liveWork">> {
  const { platform, now, logger } = settings;
  const { live, engine } = parts;
  const { store, credits, library } = platform;
  const feed = new LiveFeed(store, logger);
  const sessions = new LiveStore(store, feed, now);
  const webhooks = new LiveWebhooks(settings.webhooks, now, live.webhookBatchMs);
  const endings = new LiveEndings(sessions, library, webhooks, () => engine.info, now);
  const { stopWaitMs, keepAliveMs } = live;
  return {
    live: new LiveSessions({
      store,
      sessions,
      feed,
      endings,
      sources: parts.sources,
      credits,
      cursors: new EventCursors(store, now),
      webhookTargets: parts.webhookTargets,
      engineLanguage: engine.info.language,
      now,
      ...(stopWaitMs === undefined ? {} : { stopWaitMs }),
      ...(keepAliveMs === undefined ? {} : { keepAliveMs }),
    }),
    liveWork: {
      store: sessions,
      feed,
      runner: new LiveRunner({
        sessions,
        endings,
        webhooks,
        sources: parts.sources,
        engine,
        fetch: parts.fetch,
        credits,
        now,
        logger,
        settings: live,
      }),
    },
  };
}

/**
 * Speech recognition and its jobs: a job that finishes tells the library, and the monitors
 * (whose transcripts may wait on it) when the process has them.
 */
function speechServices(
  settings: ServiceSettings,
  speech: SpeechParts,
  options: { sources: SourceRegistry; kept: TranscriptStore },
): { recognition: SpeechRecognition; runner: SpeechJobRunner; jobs: TranscriptJobs } {
  const { platform, now, logger } = settings;
  const jobs = new TranscriptJobs(platform.store, platform.credits, options.kept, now, settings.webhooks, [
    platform.library,
    ...(settings.monitors ? [settings.monitors.events] : []),
  ]);
  const recognition = new SpeechRecognition({
    store: options.kept,
    credits: platform.credits,
    jobs,
    engine: speech.engine,
    queue: speech.jobs.queue,
    logger,
    inlineAudioSeconds: speech.jobs.inlineAudioSeconds,
    maxQueuedJobs: speech.jobs.maxQueuedJobs,
  });
  const runner = new SpeechJobRunner({ sources: options.sources, jobs, engine: speech.engine, logger });
  return { recognition, runner, jobs };
}

/** The dependencies of speech recognition the deep health check asks, besides the database. */
function dependencyProbes(
  speech: SpeechParts,
  platforms: Pick<PlatformSources, "check"> | undefined,
): DependencyProbe[] {
  return [
    { name: "queue", check: () => speech.jobs.queue.check() },
    { name: "speech_engine", check: () => speech.engine.check() },
    ...(platforms ? [{ name: "video_platforms" as const, check: () => platforms.check() }] : []),
  ];
}
