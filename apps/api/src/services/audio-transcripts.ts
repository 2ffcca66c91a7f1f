import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Schema } from "@verbatim/contract";
import type { SpeechEngine, SpeechTranscript } from "../adapters/asr/index.ts";
import { transcribeMedia } from "../adapters/asr/index.ts";
import type { AudioSources, PublisherTranscript, ResolvedAudioSource } from "../adapters/audio-sources/audio-source.ts";
import { probeDuration } from "../adapters/media/decoder.ts";
import { isDrmProtected } from "../adapters/media/protection.ts";
import { DownloadCapReached, type DownloadOptions } from "../adapters/net/media-download.ts";
import type { RoutedStream, YoutubeAudio, YoutubeAudioSource } from "../adapters/youtube/index.ts";
import { ApiError } from "../errors.ts";
import { newId } from "../ids.ts";
import type { Logger } from "../logger.ts";
import { choosePlatformTranslation } from "../sources/caption-translations.ts";
import type { CaptionTrack, SourceCallOptions, SourceCaptions, SourceDetails } from "../sources/platform-source.ts";
import type { SourceMatch, SourceRegistry } from "../sources/registry.ts";
import { SourceError } from "../sources/source-error.ts";
import { whenReachable } from "../store/retry-until-reachable.ts";
import { AudioTranscriptStore, type FullTranscript } from "./audio-transcript-store.ts";
import type { ChargeSettlement, Credits } from "./credits.ts";
import { type PlanName, plans } from "./plans.ts";
import { pricing } from "./pricing.ts";
import { ingestedText } from "./segment-text.ts";
import { isAnswerable, toApiError, translationUnavailable } from "./source-failures.ts";
import { type JobFailure, type TranscriptJobRow, TranscriptJobs } from "./transcript-jobs.ts";
import { type TranscriptMode, youtubeWatchUrl } from "./video-transcripts.ts";
import { ingestedWords } from "./word-timing.ts";

/** The longest audio transcribed (docs/decisions.md, rule 13): four hours. */
export const maxAudioSeconds = 4 * 60 * 60;

/** How often, at most, a running job writes its progress: polls read it, every write costs a statement. */
const progressIntervalMs = 1_000;

/** How long a worker waits for the row of a job it was handed: the API queues the message just before it writes the row. */
const rowArrivalMs = 10_000;

/**
 * How long an attempt waits for a store that went away, at its start and before recording its
 * result, instead of failing: an outage of seconds must not cost a transcription its attempt.
 */
const storeOutageToleranceMs = 60_000;

/** Seconds a client is told to wait when too many jobs are queued. */
const overloadedRetryAfterSeconds = 30;

/** Transcript fields without `text` / `segments`: what the source says, before any words. */
type TranscriptFields = Omit<FullTranscript, "text" | "segments">;
type Segment = Schema<"Segment">;
type SourcePlatform = Schema<"Platform">;

/**
 * Where a job's media comes from. Stream and signed media addresses expire, so a YouTube video or
 * a platform item is stored by what names it, and the worker resolves it again.
 */
type MediaReference =
  | { kind: "url"; url: string }
  | { kind: "youtube"; videoId: string }
  | { kind: "source"; platform: string; url: string };

/** A download's options, and the account it is for: a platform download takes that account's share of yt-dlp. */
type AccountDownloadOptions = DownloadOptions & { accountId?: string };

/** What speech recognition of one source needs: its transcript fields, its media, and its key in the store. */
interface SpeechSource {
  videoId: string;
  platform: SourcePlatform;
  fields: TranscriptFields;
  declaredDurationSeconds: number | null;
  declaredBytes: number | null;
  media: MediaReference;
  storeKey: string;
  /** A YouTube stream already resolved by the request, used by an inline transcription. */
  resolvedStream?: RoutedStream;
}

/** One request for speech recognition or a publisher's transcript, as the route read it. */
export interface AudioRequest {
  video: string;
  episode?: string;
  mode: TranscriptMode;
  accountId: string;
  plan: PlanName;
  /** The balance when the request arrived; null for unlimited accounts. */
  balance: number | null;
  requestId: string;
  /** The operation charged, as `METHOD /path`: the ledger says which endpoint spent the credits. */
  operation: string;
  /** Once aborted, nothing more is charged or queued for this request (a batch past its deadline). */
  signal?: AbortSignal;
  /**
   * Where the request's one charge commits with its answer (a request with an Idempotency-Key);
   * batch rows and monitors, which charge several times in one request, have none.
   */
  settlement?: ChargeSettlement;
  callbackUrl: string | null;
  /** The validated body, kept with a job. */
  body: Record<string, unknown>;
  /** The base of `error.docs` links in a job's callback. */
  docsBaseUrl: string;
}

/** What a request came to: a transcript now, or a job to poll. */
export type AudioOutcome =
  | { kind: "transcript"; transcript: FullTranscript; creditsSpent: number; balance: number | null }
  | { kind: "job"; jobId: string; videoId: string; platform: SourcePlatform };

/** What a job's worker needs, stored on the job row. */
interface JobWork {
  media: MediaReference;
  store_key: string;
  fields: TranscriptFields;
}

/** One attempt of a job, as the queue runs it. */
export interface JobAttempt {
  /** Aborted when the queue takes the job back (its heartbeat lapsed); the attempt then stops without a trace. */
  signal: AbortSignal;
  /** No retry follows: a transient failure now fails the job instead of being retried. */
  finalAttempt: boolean;
}

/** The message of a transcription: the job row does the talking; the account and plan group it. */
export interface TranscriptionMessage {
  jobId: string;
  accountId: string;
  plan: PlanName;
  /**
   * Attempts the job ran before it was handed back for want of a free slot: a hand-back is a new
   * queue job, and the job's attempts count across them, so its last attempt comes.
   */
  attemptsBefore?: number;
}

/** A queued message, until its job is admitted. */
export interface QueuedTranscription {
  /** Removes the message before a worker takes it. */
  withdraw(): Promise<void>;
}

/** Hands accepted jobs to the workers, wherever they run. */
export interface TranscriptionQueue {
  /**
   * Queues the job under its account and plan, so the plan's concurrency holds across every
   * worker. Answers how to take the message back when the job is not admitted after all.
   */
  enqueue(job: TranscriptionMessage): Promise<QueuedTranscription>;
  /** A cheap round trip to the queue, for the deep health check. */
  check(): Promise<void>;
}

export interface AudioTranscriptsOptions {
  credits: Credits;
  jobs: TranscriptJobs;
  transcripts: AudioTranscriptStore;
  sources: AudioSources;
  /** YouTube audio streams; without them, speech recognition of YouTube videos is refused. */
  youtube?: YoutubeAudioSource;
  /** The other video platforms (TikTok, Vimeo, …); without them, their links are read as web pages. */
  platforms?: SourceRegistry;
  engine: SpeechEngine;
  queue: TranscriptionQueue;
  logger: Logger;
  /** Media shorter than this is transcribed within the request; 0 turns inline transcription off. */
  inlineAudioSeconds: number;
  /** Unfinished jobs beyond which new ones are refused. */
  maxQueuedJobs: number;
  /** Where media is downloaded while it is transcribed; default the OS's temporary directory. */
  workDir?: string;
}

/**
 * Transcripts of podcasts, feeds and media files, and speech recognition of YouTube videos. A
 * publisher's transcript is answered at once (1 credit); otherwise speech recognition: from the
 * store when the media was transcribed before, within the request when the media is short, else
 * as a job that a worker runs. Speech recognition costs 1 credit per started minute, charged on
 * delivery; failures cost nothing.
 */
export class AudioTranscripts {
  constructor(private readonly options: AudioTranscriptsOptions) {}

  async request(request: AudioRequest): Promise<AudioOutcome> {
    const { sources } = this.options;
    const source = await sources
      .resolve(request.video, request.episode === undefined ? {} : { episode: request.episode })
      .catch(rethrowAsApiError);
    const fields = this.fieldsOf(source);

    if (request.mode !== "audio") {
      const published = await this.publisherTranscript(source, request.mode);
      if (published) return this.deliverPublished(request, fields, published);
      if (request.mode === "captions") {
        throw new ApiError(
          "no_captions",
          `${source.url} comes with no transcript from its publisher. Speech recognition would transcribe it.`,
          { extra: { retry_with: { mode: "audio" } } },
        );
      }
    }

    const storeKey = AudioTranscriptStore.keyOf(source.mediaUrl, this.options.engine.info);
    const stored = await this.options.transcripts.find(storeKey);
    // Media is stored by address, and an address may be a capability (`?token=...`) another account
    // lists without holding it: the stored words go only to a request that can still reach the media.
    if (stored && (await sources.isReachable(source.mediaUrl))) {
      // What the source says now (titles, the podcast block) over the words, timing and engine of the stored one.
      const { duration, language, speech_engine, segments, text } = stored.transcript;
      const transcript: FullTranscript = { ...fields, duration, language, speech_engine, segments, text };
      return this.deliverSpeech(request, transcript, stored.durationSeconds);
    }
    return this.recogniseSpeech(request, {
      videoId: source.videoId,
      platform: source.platform,
      fields,
      declaredDurationSeconds: source.declaredDurationSeconds,
      declaredBytes: source.declaredBytes,
      media: { kind: "url", url: source.mediaUrl },
      storeKey,
    });
  }

  /** Whether YouTube videos can be transcribed from their audio here. */
  get transcribesYoutube(): boolean {
    return this.options.youtube !== undefined;
  }

  /** Speech recognition of a YouTube video's audio: from the store when transcribed before, else as other media. */
  async requestYoutube(request: AudioRequest, videoId: string): Promise<AudioOutcome> {
    const storeKey = AudioTranscriptStore.keyOf(youtubeWatchUrl(videoId), this.options.engine.info);
    const stored = await this.options.transcripts.find(storeKey);
    if (stored) return this.deliverSpeech(request, stored.transcript, stored.durationSeconds);
    const audio = await this.resolveYoutubeAudio(videoId);
    return this.recogniseSpeech(request, {
      videoId,
      platform: "youtube",
      fields: this.youtubeFieldsOf(audio),
      declaredDurationSeconds: audio.details.durationSeconds,
      declaredBytes: audio.stream.contentLength,
      media: { kind: "youtube", videoId },
      storeKey,
      resolvedStream: audio.stream,
    });
  }

  /** The platform source that claims an input (a TikTok link, a Vimeo link, …), offline; null when none does. */
  matchPlatform(input: string): SourceMatch | null {
    return this.options.platforms?.match(input) ?? null;
  }

  /**
   * A video platform's item, captions first: the platform's own track by the captions-first
   * rule (1 credit), else speech recognition of its audio, from the store when this item was
   * transcribed before, whichever address named it. With `translateTo`, the platform's own
   * translation (`choosePlatformTranslation`) or 422 `translation_unavailable`, never speech.
   */
  async requestPlatform(
    request: AudioRequest,
    match: SourceMatch,
    language?: string,
    translateTo?: string,
  ): Promise<AudioOutcome> {
    const { source } = match;
    const details = await source.resolve(match.ref, platformCallOf(request)).catch(rethrowAsApiError);
    const fields = this.platformFieldsOf(details);
    if (translateTo !== undefined) return this.platformTranslation(request, details, match, language, translateTo);
    const track = request.mode === "audio" ? null : source.captionTrack(details, language);
    if (track) {
      const delivered = await this.platformCaptions(request, details, match, track, null);
      if (delivered) return delivered;
    }
    if (request.mode !== "audio") {
      if (request.mode === "captions") {
        throw new ApiError(
          "no_captions",
          `${details.url} has no captions on ${details.ref.platform}. Speech recognition would transcribe it.`,
          {
            extra: { retry_with: { mode: "audio" } },
          },
        );
      }
    }
    const storeKey = AudioTranscriptStore.keyOf(`${details.ref.platform}:${details.itemId}`, this.options.engine.info);
    const stored = await this.options.transcripts.find(storeKey);
    if (stored) {
      const { duration, language: spoken, speech_engine, segments, text } = stored.transcript;
      return this.deliverSpeech(
        request,
        { ...fields, duration, language: spoken, speech_engine, segments, text },
        stored.durationSeconds,
      );
    }
    return this.recogniseSpeech(request, {
      videoId: details.itemId,
      platform: details.ref.platform,
      fields,
      declaredDurationSeconds: details.durationSeconds,
      declaredBytes: details.declaredAudioBytes,
      media: { kind: "source", platform: details.ref.platform, url: details.url },
      storeKey,
    });
  }

  /** `translate_to` on a platform item: the track `choosePlatformTranslation` names, or 422 naming what exists. */
  private async platformTranslation(
    request: AudioRequest,
    details: SourceDetails,
    match: SourceMatch,
    language: string | undefined,
    translateTo: string,
  ): Promise<AudioOutcome> {
    const choice = choosePlatformTranslation(match.source, details, language, translateTo);
    if (choice.kind === "unavailable") throw translationUnavailable(choice.message, choice.available);
    const delivered = await this.platformCaptions(request, details, match, choice.track, choice.sourceLanguage);
    if (delivered) return delivered;
    throw translationUnavailable(
      `The ${choice.track.language} captions of ${details.url} hold no text: only captions can be translated.`,
      [],
    );
  }

  /**
   * A platform's caption track, charged: from the store when read before (per platform, item,
   * language and kind), else read and stored; null when the track holds no text. A translation
   * is the track of its language, so it is stored as that track; `sourceLanguage` is said on
   * delivery, by what the platform lists now.
   */
  private async platformCaptions(
    request: AudioRequest,
    details: SourceDetails,
    { source }: SourceMatch,
    track: CaptionTrack,
    sourceLanguage: string | null,
  ): Promise<AudioOutcome | null> {
    const fields = this.platformFieldsOf(details);
    const translated = sourceLanguage === null ? {} : { source_language: sourceLanguage };
    // Served only after the item resolved again, so it is still public.
    const captionsKey = AudioTranscriptStore.captionsKeyOf(details.ref.platform, details.itemId, track);
    const stored = await this.options.transcripts.findCaptions(captionsKey);
    if (stored) {
      // What the platform says now (title, creator) over the stored words.
      const { language: storedLanguage, caption_kind, segments, text } = stored;
      const transcript: FullTranscript = {
        ...fields,
        source: "captions",
        language: storedLanguage,
        caption_kind,
        ...translated,
        segments,
        text,
      };
      return this.deliverCaptions(request, transcript);
    }
    const captions = await source.captions(details, track, platformCallOf(request)).catch(rethrowAsApiError);
    if (!captions) return null;
    const transcript = platformCaptionsTranscript(fields, captions);
    await this.options.transcripts.saveCaptions(captionsKey, transcript);
    return this.deliverCaptions(request, { ...transcript, ...translated });
  }

  /** Transcribes a source not transcribed before: within the request when its media is short, else as a job. */
  private async recogniseSpeech(request: AudioRequest, source: SpeechSource): Promise<AudioOutcome> {
    const declared = source.declaredDurationSeconds;
    if (declared !== null && declared > maxAudioSeconds) throw audioTooLong(declared);
    // The declared duration bounds the price before any work; unknown, the minimum does.
    this.options.credits.requireAtLeast(
      request.balance,
      declared === null ? pricing.minimum() : pricing.speechRecognition(declared),
    );

    const inline = this.options.inlineAudioSeconds;
    const mayBeShort = declared === null ? !surelyLongerThan(source.declaredBytes, inline) : declared < inline;
    let measuredSeconds: number | null = null;
    if (inline > 0 && mayBeShort) {
      const inlineAttempt = await this.transcribeInline(source, inline, request.accountId);
      if (inlineAttempt.kind === "transcribed") {
        const { transcribed } = inlineAttempt;
        const transcript = fullTranscript(source.fields, this.options.engine, transcribed);
        await this.options.transcripts.save(source.storeKey, { transcript, durationSeconds: transcribed.duration });
        return this.deliverSpeech(request, transcript, transcribed.duration);
      }
      measuredSeconds = inlineAttempt.durationSeconds;
    }
    return this.startJob(request, source, measuredSeconds ?? declared);
  }

  /**
   * Transcribes media within the request when it is short. Neither the container's declared
   * length nor its size is trusted: the download stops at what the inline limit could hold at the
   * richest audio rate, and decoding stops at the limit, so long media costs the request little
   * before it becomes a job.
   */
  private async transcribeInline(
    source: SpeechSource,
    inlineSeconds: number,
    accountId: string,
  ): Promise<
    { kind: "transcribed"; transcribed: SpeechTranscript } | { kind: "long"; durationSeconds: number | null }
  > {
    try {
      return await this.withDownload(
        source,
        { maxBytes: inlineSeconds * richestAudioBytesPerSecond, accountId },
        async (
          path,
        ): Promise<
          { kind: "transcribed"; transcribed: SpeechTranscript } | { kind: "long"; durationSeconds: number | null }
        > => {
          const duration = await inspect(path);
          if (duration === null || duration >= inlineSeconds) return { kind: "long", durationSeconds: duration };
          const transcribed = await recognise(this.options.engine, path, { stopAfterSeconds: inlineSeconds });
          return transcribed === null ? { kind: "long", durationSeconds: null } : { kind: "transcribed", transcribed };
        },
      );
    } catch (error) {
      if (error instanceof DownloadCapReached) return { kind: "long", durationSeconds: null };
      throw error;
    }
  }

  /**
   * Runs one attempt of a job: download, checks, recognition with progress, then the completion
   * that charges once. An input problem fails the job; a transient one is thrown for the queue to
   * retry, unless this is the last attempt.
   */
  async runJob(jobId: string, attempt: JobAttempt): Promise<void> {
    const { jobs, logger } = this.options;
    const job = await whenReachable(() => this.awaitRow(jobId, attempt.signal), storeOutageToleranceMs, attempt.signal);
    if (!job) {
      logger.warn({ job_id: jobId }, "a queued transcription has no job row; the request that queued it failed");
      return;
    }
    if (job.status !== "processing") return;
    const work = TranscriptJobs.workOf(job) as unknown as JobWork;
    try {
      const transcribed = await this.withDownload(
        work,
        { signal: attempt.signal, accountId: job.accountId },
        async (path) => {
          const duration = await inspect(path, attempt.signal);
          return recognise(this.options.engine, path, {
            signal: attempt.signal,
            onProgress: this.progressReporter(jobId, duration),
          });
        },
      );
      if (!transcribed) throw new Error("recognition stopped before the end");
      const transcript = fullTranscript(work.fields, this.options.engine, transcribed);
      // Completing twice is harmless: only a job still processing is completed and charged.
      const outcome = await whenReachable(
        () =>
          jobs.complete(job, {
            transcript,
            durationSeconds: transcribed.duration,
            credits: pricing.speechRecognition(transcribed.duration),
            storeKey: work.store_key,
          }),
        storeOutageToleranceMs,
        attempt.signal,
      );
      logger.info({ job_id: jobId, outcome: outcome.kind }, "transcription job finished");
    } catch (error) {
      if (attempt.signal.aborted) throw error;
      const failure = jobFailureOf(error, attempt.finalAttempt);
      if (!failure) throw error;
      if (failure.code === "internal_error") logger.error({ err: error, job_id: jobId }, "transcription job failed");
      await jobs.fail(job, failure);
    }
  }

  /** Fails a job whose every attempt died without an answer (the queue's dead letter). */
  async abandonJob(jobId: string): Promise<void> {
    const job = await this.options.jobs.find(jobId);
    if (!job) return;
    const failed = await this.options.jobs.fail(job, {
      code: "internal_error",
      message:
        "The job's worker stopped before finishing, on every attempt. Nothing was charged; send the request again.",
    });
    if (failed) this.options.logger.error({ job_id: jobId }, "transcription job abandoned after its attempts died");
  }

  private async publisherTranscript(
    source: ResolvedAudioSource,
    mode: "auto" | "captions",
  ): Promise<PublisherTranscript | null> {
    try {
      return await this.options.sources.publisherTranscript(source);
    } catch (error) {
      // With speech recognition to fall back on, an unreachable publisher transcript is not the client's problem.
      if (mode === "captions" || !isAnswerable(error)) throw error;
      this.options.logger.warn({ err: error, url: source.url }, "publisher transcript unavailable; transcribing audio");
      return null;
    }
  }

  private async deliverPublished(
    request: AudioRequest,
    fields: TranscriptFields,
    published: PublisherTranscript,
  ): Promise<AudioOutcome> {
    const segments = published.segments.map(roundedSegment);
    const transcript: FullTranscript = {
      ...fields,
      language: published.language ?? fields.language,
      source: "captions",
      caption_kind: "publisher",
      speakers: published.speakers?.map(ingestedText) ?? null,
      segments,
      text: segments.map((segment) => segment.text).join(" "),
    };
    const creditsSpent = pricing.captions();
    const balance = await this.charge(request, creditsSpent);
    return { kind: "transcript", transcript, creditsSpent, balance };
  }

  /** A caption transcript, at the captions' price. */
  private async deliverCaptions(request: AudioRequest, transcript: FullTranscript): Promise<AudioOutcome> {
    const creditsSpent = pricing.captions();
    const balance = await this.charge(request, creditsSpent);
    return { kind: "transcript", transcript, creditsSpent, balance };
  }

  private async deliverSpeech(
    request: AudioRequest,
    transcript: FullTranscript,
    durationSeconds: number,
  ): Promise<AudioOutcome> {
    const creditsSpent = pricing.speechRecognition(durationSeconds);
    const balance = await this.charge(request, creditsSpent);
    return { kind: "transcript", transcript, creditsSpent, balance };
  }

  private charge(request: AudioRequest, credits: number): Promise<number | null> {
    return this.options.credits.charge({
      accountId: request.accountId,
      credits,
      operation: request.operation,
      requestId: request.requestId,
      ...(request.signal ? { signal: request.signal } : {}),
      ...(request.settlement ? { settlement: request.settlement } : {}),
    });
  }

  /** Queues a job, admitted for the account with the price its known length (declared or measured) gives. */
  private async startJob(
    request: AudioRequest,
    source: SpeechSource,
    knownSeconds: number | null,
  ): Promise<AudioOutcome> {
    request.signal?.throwIfAborted();
    const { jobs, queue, maxQueuedJobs } = this.options;
    const unfinished = await jobs.unfinishedCount();
    if (unfinished >= maxQueuedJobs) {
      throw new ApiError(
        "overloaded",
        `${unfinished} transcription jobs are waiting, the most this server queues. Nothing was charged; retry later.`,
        { retryAfterSeconds: overloadedRetryAfterSeconds },
      );
    }
    const jobId = newId("job");
    // The message goes first: a row without a message would stay `processing` forever, while a
    // message whose row never came (this process died in between) is dropped by the worker.
    const queued = await queue.enqueue({ jobId, accountId: request.accountId, plan: request.plan });
    const work: JobWork = { media: source.media, store_key: source.storeKey, fields: source.fields };
    const estimatedCredits = knownSeconds === null ? pricing.minimum() : pricing.speechRecognition(knownSeconds);
    try {
      await jobs.admit(
        {
          id: jobId,
          accountId: request.accountId,
          videoId: source.videoId,
          platform: source.platform,
          request: request.body,
          work: work as unknown as Record<string, unknown>,
          docsBaseUrl: request.docsBaseUrl,
          callbackUrl: request.callbackUrl,
          requestId: request.requestId,
          operation: request.operation,
          estimatedCredits,
        },
        { maxUnfinishedJobs: plans[request.plan].maxUnfinishedJobs },
      );
    } catch (error) {
      // A worker would drop the message after waiting for its row; taking it back spares that wait.
      await queued.withdraw().catch((err: unknown) => {
        this.options.logger.warn({ err, job_id: jobId }, "the message of a refused job could not be withdrawn");
      });
      throw error;
    }
    return { kind: "job", jobId, videoId: source.videoId, platform: source.platform };
  }

  /** Downloads the media into a fresh temporary directory, runs `use` on the file, and removes it whatever happens. */
  private async withDownload<T>(
    source: Pick<SpeechSource, "media" | "resolvedStream">,
    options: AccountDownloadOptions,
    use: (path: string) => Promise<T>,
  ): Promise<T> {
    const dir = await mkdtemp(join(this.options.workDir ?? tmpdir(), "verbatim-media-"));
    try {
      return await use(await this.download(source, dir, options));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /** Downloads the media into `dir`; answers the file's path. */
  private async download(
    { media, resolvedStream }: Pick<SpeechSource, "media" | "resolvedStream">,
    dir: string,
    options: AccountDownloadOptions,
  ): Promise<string> {
    const path = join(dir, "media");
    if (media.kind === "url") {
      await this.options.sources.download(media.url, path, options);
      return path;
    }
    if (media.kind === "source") return this.downloadFromPlatform(media, dir, options);
    const stream = resolvedStream ?? (await this.resolveYoutubeAudio(media.videoId)).stream;
    await this.youtubeSource()
      .download(stream, path, options)
      .catch((error: unknown) => {
        throw options.signal?.aborted ? error : toApiError(error);
      });
    return path;
  }

  private async downloadFromPlatform(
    media: { platform: string; url: string },
    dir: string,
    options: AccountDownloadOptions,
  ): Promise<string> {
    const source = this.options.platforms?.sourceOf(media.platform);
    if (!source) {
      throw new ApiError("unsupported_platform", `This server no longer reads ${media.platform}; the job cannot run.`);
    }
    const downloaded = await source
      .download({ platform: media.platform, url: media.url }, dir, {
        maxBytes: options.maxBytes ?? Number.MAX_SAFE_INTEGER,
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.accountId === undefined ? {} : { accountId: options.accountId }),
      })
      .catch((error: unknown) => {
        if (options.signal?.aborted) throw error;
        if (options.maxBytes !== undefined && error instanceof SourceError && error.kind === "too_large") {
          throw new DownloadCapReached(options.maxBytes);
        }
        throw toApiError(error);
      });
    return downloaded.path;
  }

  private youtubeSource(): YoutubeAudioSource {
    if (!this.options.youtube) {
      throw new ApiError("unsupported_platform", "This server does not transcribe the audio of YouTube videos.");
    }
    return this.options.youtube;
  }

  private resolveYoutubeAudio(videoId: string): Promise<YoutubeAudio> {
    return this.youtubeSource()
      .resolveAudio(videoId)
      .catch((error: unknown) => {
        throw toApiError(error);
      });
  }

  private youtubeFieldsOf({ details }: YoutubeAudio): TranscriptFields {
    return {
      kind: "transcript",
      video_id: details.videoId,
      url: youtubeWatchUrl(details.videoId),
      platform: "youtube",
      title: details.title,
      channel: details.channel,
      duration: details.durationSeconds,
      language: this.options.engine.info.language,
      source: "audio",
      caption_kind: null,
      thumbnail_url: details.thumbnailUrl,
      speakers: null,
      speech_engine: null,
    };
  }

  /** Progress of a job, written at most once a second and never as done: completion says that. */
  private progressReporter(jobId: string, durationSeconds: number | null): ((seconds: number) => void) | undefined {
    if (durationSeconds === null || durationSeconds <= 0) return undefined;
    let lastWrite = 0;
    return (seconds) => {
      const now = Date.now();
      if (now - lastWrite < progressIntervalMs) return;
      lastWrite = now;
      const fraction = Math.min(0.99, Math.round((seconds / durationSeconds) * 100) / 100);
      this.options.jobs
        .reportProgress(jobId, fraction)
        .catch((err: unknown) => this.options.logger.warn({ err, job_id: jobId }, "progress not recorded"));
    };
  }

  /** The job's row; it may trail the queue message by a moment (see `startJob`). */
  private async awaitRow(jobId: string, signal: AbortSignal): Promise<TranscriptJobRow | null> {
    const deadline = Date.now() + rowArrivalMs;
    for (;;) {
      const job = await this.options.jobs.find(jobId);
      if (job || Date.now() > deadline || signal.aborted) return job;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  private platformFieldsOf(details: SourceDetails): TranscriptFields {
    return {
      kind: "transcript",
      video_id: details.itemId,
      url: details.url,
      platform: details.ref.platform,
      title: details.title,
      channel: details.channel,
      duration: details.durationSeconds,
      language: this.options.engine.info.language ?? details.language,
      source: "audio",
      caption_kind: null,
      thumbnail_url: details.thumbnailUrl,
      published_at: details.publishedAt?.toISOString() ?? null,
      speakers: null,
      speech_engine: null,
    };
  }

  private fieldsOf(source: ResolvedAudioSource): TranscriptFields {
    const podcast = source.podcast;
    return {
      kind: "transcript",
      video_id: source.videoId,
      url: source.url,
      platform: source.platform,
      title: source.title,
      channel: source.channel,
      duration: source.declaredDurationSeconds,
      language: this.options.engine.info.language ?? source.language,
      source: "audio",
      caption_kind: null,
      thumbnail_url: source.thumbnailUrl,
      speakers: null,
      speech_engine: null,
      ...(podcast
        ? {
            podcast: {
              show: podcast.show,
              episode: podcast.episode,
              published_at: podcast.publishedAt?.toISOString() ?? null,
              feed_url: podcast.feedUrl,
              audio_url: podcast.audioUrl,
              resolved_via: podcast.resolvedVia,
            },
          }
        : {}),
    };
  }
}

/**
 * The checks before recognition: DRM (`drm_protected`), a readable audio stream (`no_audio_stream`,
 * `invalid_input`) and the four-hour limit (`audio_too_long`). Answers the duration the container
 * declares, null when it declares none.
 */
async function inspect(path: string, signal?: AbortSignal): Promise<number | null> {
  if (await isDrmProtected(path)) {
    throw new ApiError("drm_protected", "The media is encrypted with DRM; it cannot be transcribed.");
  }
  const duration = await probeDuration(path, signal === undefined ? {} : { signal });
  if (duration !== null && duration > maxAudioSeconds) throw audioTooLong(duration);
  return duration;
}

/**
 * Recognises a file; audio that turns out longer than four hours as it decodes stops there. With
 * `stopAfterSeconds`, decoding stops once past it and the answer is null: the media is longer
 * than its container said.
 */
async function recognise(
  engine: SpeechEngine,
  path: string,
  options: { signal?: AbortSignal; onProgress?: ((seconds: number) => void) | undefined; stopAfterSeconds?: number },
): Promise<SpeechTranscript | null> {
  const limit = Math.min(maxAudioSeconds, options.stopAfterSeconds ?? maxAudioSeconds);
  const overLimit = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, overLimit.signal]) : overLimit.signal;
  const pastInlineLimit = new Error("past the inline limit");
  let transcript: SpeechTranscript;
  try {
    transcript = await transcribeMedia(engine, path, {
      signal,
      onProgress: (seconds) => {
        if (seconds > limit) overLimit.abort(seconds > maxAudioSeconds ? audioTooLong(seconds) : pastInlineLimit);
        options.onProgress?.(seconds);
      },
    });
  } catch (error) {
    if (overLimit.signal.aborted && !options.signal?.aborted) {
      if (overLimit.signal.reason === pastInlineLimit) return null;
      throw overLimit.signal.reason;
    }
    throw error;
  }
  if (transcript.segments.every((segment) => segment.text.trim() === "")) {
    throw new ApiError("no_speech", "The audio holds no detectable speech. Nothing was charged.");
  }
  return transcript;
}

function fullTranscript(fields: TranscriptFields, engine: SpeechEngine, recognised: SpeechTranscript): FullTranscript {
  const segments = recognised.segments.map(roundedSegment);
  return {
    ...fields,
    duration: Math.round(recognised.duration * 1000) / 1000,
    speech_engine: {
      engine: recognised.info.engine,
      model: recognised.info.model,
      ...(recognised.info.decoding === null ? {} : { decoding: recognised.info.decoding }),
    },
    language: engine.info.language ?? fields.language,
    segments,
    text: segments.map((segment) => segment.text).join(" "),
  };
}

/**
 * A wire segment: times to the millisecond, its text as the service keeps it, the speaker and the
 * words the source timed kept (the store keeps them; a response shows them when asked).
 */
function roundedSegment(segment: {
  start: number;
  duration: number;
  text: string;
  speaker?: number;
  words?: Segment["words"];
}): Segment {
  return {
    start: Math.round(segment.start * 1000) / 1000,
    duration: Math.round(segment.duration * 1000) / 1000,
    text: ingestedText(segment.text),
    ...(segment.speaker === undefined ? {} : { speaker: segment.speaker }),
    ...(segment.words === undefined ? {} : { words: ingestedWords(segment.words) }),
  };
}

/** 24-bit 96 kHz stereo PCM, the richest audio rate in use, in bytes per second. */
const richestAudioBytesPerSecond = 576_000;

/**
 * Whether media of this size lasts longer than `seconds` at any audio bitrate in use: 24-bit
 * 96 kHz stereo PCM, the richest, is 576 kB/s. Such media (long audio, or a video whose picture
 * makes it large) goes to a job without a download within the request to measure it.
 */
function surelyLongerThan(bytes: number | null, seconds: number): boolean {
  return bytes !== null && bytes > seconds * richestAudioBytesPerSecond;
}

function audioTooLong(seconds: number): ApiError {
  return new ApiError(
    "audio_too_long",
    `The media lasts ${Math.round(seconds / 60)} minutes; at most ${maxAudioSeconds / 3600} hours are transcribed. Nothing was charged.`,
  );
}

/**
 * The failure a job records for an error, or null when the error should be retried: input
 * problems (the 3xxx and 4xxx families) fail the job at once; upstream trouble (5xxx) and the
 * unexpected are retried until the last attempt, which records them.
 */
function jobFailureOf(error: unknown, finalAttempt: boolean): JobFailure | null {
  if (isAnswerable(error)) {
    const failure = toApiError(error);
    const transient = failure.number >= 5000;
    if (transient && !finalAttempt) return null;
    return {
      code: failure.code,
      message: failure.message,
      ...(failure.extra === undefined ? {} : { extra: failure.extra }),
    };
  }
  if (!finalAttempt) return null;
  return {
    code: "internal_error",
    message: "The transcription failed unexpectedly on every attempt. Nothing was charged; send the request again.",
  };
}

/** A platform's captions as the wire's transcript, over the item's fields. */
function platformCaptionsTranscript(fields: TranscriptFields, captions: SourceCaptions): FullTranscript {
  const segments = captions.segments.map(roundedSegment);
  return {
    ...fields,
    language: captions.language,
    source: "captions",
    caption_kind: captions.kind,
    segments,
    text: segments.map((segment) => segment.text).join(" "),
  };
}

/** A platform call on behalf of a request: its account's share of the source, and its signal. */
function platformCallOf(request: AudioRequest): SourceCallOptions {
  return { accountId: request.accountId, ...(request.signal ? { signal: request.signal } : {}) };
}

/** Throws a source failure as the API error it answers. */
function rethrowAsApiError(error: unknown): never {
  throw toApiError(error);
}
