import type { SpeechEngine, SpeechTranscript } from "../../adapters/asr/index.ts";
import { DownloadCapReached } from "../../adapters/net/media-download.ts";
import { ApiError } from "../../errors.ts";
import { newId } from "../../ids.ts";
import type { Logger } from "../../logger.ts";
import type { PlatformSource, SourceDetails, SourceRef } from "../../sources/platform-source.ts";
import type { Credits } from "../accounts/index.ts";
import { plans, pricing } from "../accounts/index.ts";
import {
  callOf,
  chargeOf,
  type FullTranscript,
  fieldsOf,
  KeptTranscripts,
  keptFieldsOf,
  keptSpeechTranscript,
  libraryDeliveryOf,
  roundedSeconds,
  storedItemOf,
  type TranscriptOutcome,
  type TranscriptQuery,
  TranscriptStore,
} from "../kept/index.ts";
import type { JobWork } from "./speech-jobs.ts";
import {
  audioTooLong,
  fullTranscript,
  inspect,
  maxAudioSeconds,
  recognise,
  richestAudioBytesPerSecond,
  surelyLongerThan,
  withDownload,
} from "./speech-media.ts";
import type { TranscriptJobs } from "./transcript-jobs.ts";
import type { TranscriptionQueue } from "./transcription-queue.ts";

/** Seconds a client is told to wait when too many jobs are queued. */
const overloadedRetryAfterSeconds = 30;

export interface SpeechRecognitionOptions {
  store: TranscriptStore;
  credits: Credits;
  jobs: TranscriptJobs;
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
 * Speech recognition of any source's media: from the store when the engine's model transcribed
 * the item before, within the request when the media is short, else as a job that a worker runs.
 * It costs 1 credit per started minute, charged on delivery; failures cost nothing.
 */
export class SpeechRecognition {
  private readonly kept: KeptTranscripts;
  private readonly speechModel: string;

  constructor(private readonly options: SpeechRecognitionOptions) {
    this.kept = new KeptTranscripts(options.credits);
    this.speechModel = TranscriptStore.speechModelOf(options.engine.info);
  }

  /** The language the engine recognises, or null when it detects it. */
  get language(): string | null {
    return this.options.engine.info.language;
  }

  /** The transcript the engine made of an item named offline (`SourceRef.itemId`), served before resolving it; null when none. */
  async keptOf(query: TranscriptQuery, ref: SourceRef & { itemId: string }): Promise<TranscriptOutcome | null> {
    const found = await this.options.store.findSpeech({ platform: ref.platform, item: ref.itemId }, this.speechModel);
    if (!found) return null;
    return this.kept.serve(
      query,
      {
        lookup: { by: "id", id: found.id },
        credits: pricing.speechRecognition(found.durationSeconds),
        delivery: { platform: ref.platform, video_id: ref.itemId, url: ref.url, source: "audio" },
        fields: { title: found.title, channel: found.channel, durationSeconds: roundedSeconds(found.durationSeconds) },
      },
      (stored) => keptSpeechTranscript(keptFieldsOf(ref, stored), stored),
    );
  }

  /**
   * The item's speech, transcribed: from the store when made before and the source lets this
   * request have it (the web's media must still answer it), else recognised.
   */
  async transcribe(query: TranscriptQuery, source: PlatformSource, details: SourceDetails): Promise<TranscriptOutcome> {
    const fields = fieldsOf(details, this.language);
    const stored = storedItemOf(details);
    const found = await this.options.store.findSpeech(stored, this.speechModel);
    if (found && (await source.mayServeKept(details, callOf(query)))) {
      const served = await this.kept.serve(
        query,
        {
          lookup: { by: "id", id: found.id },
          credits: pricing.speechRecognition(found.durationSeconds),
          delivery: libraryDeliveryOf(fields, "audio"),
          fields: {
            title: fields.title,
            channel: fields.channel,
            durationSeconds: roundedSeconds(found.durationSeconds),
          },
        },
        (kept) => keptSpeechTranscript(fields, kept),
      );
      if (served) return served;
    }
    return this.recogniseNew(query, source, details, {
      media: details.media ?? { ...details.ref, url: details.url },
      stored,
      fields,
    });
  }

  /** Transcribes an item not transcribed before: within the request when its media is short, else as a job. */
  private async recogniseNew(
    query: TranscriptQuery,
    source: PlatformSource,
    details: SourceDetails,
    work: JobWork,
  ): Promise<TranscriptOutcome> {
    const declared = details.durationSeconds;
    if (declared !== null && declared > maxAudioSeconds) throw audioTooLong(declared);
    // The declared duration bounds the price before any work; unknown, the minimum does.
    this.options.credits.requireAtLeast(
      query.balance,
      declared === null ? pricing.minimum() : pricing.speechRecognition(declared),
    );
    const inline = this.options.inlineAudioSeconds;
    const mayBeShort = declared === null ? !surelyLongerThan(details.declaredAudioBytes, inline) : declared < inline;
    let measuredSeconds: number | null = null;
    if (inline > 0 && mayBeShort) {
      const inlineAttempt = await this.transcribeInline(source, details, work.media, inline, query.accountId);
      if (inlineAttempt.kind === "transcribed") {
        const { transcribed } = inlineAttempt;
        const transcript = fullTranscript(work.fields, this.options.engine, transcribed);
        await this.options.store.keepSpeech(work.stored, { transcript, durationSeconds: transcribed.duration });
        return this.deliver(query, transcript, transcribed.duration);
      }
      measuredSeconds = inlineAttempt.durationSeconds;
    }
    return this.startJob(query, details, work, measuredSeconds ?? declared);
  }

  /**
   * Transcribes media within the request when it is short. Neither the container's declared
   * length nor its size is trusted: the download stops at what the inline limit could hold at the
   * richest audio rate, and decoding stops at the limit, so long media costs the request little
   * before it becomes a job.
   */
  private async transcribeInline(
    source: PlatformSource,
    details: SourceDetails,
    media: SourceRef,
    inlineSeconds: number,
    accountId: string,
  ): Promise<
    { kind: "transcribed"; transcribed: SpeechTranscript } | { kind: "long"; durationSeconds: number | null }
  > {
    try {
      return await withDownload(
        this.options.workDir,
        source,
        media,
        { maxBytes: inlineSeconds * richestAudioBytesPerSecond, accountId, resolved: details },
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

  private async deliver(query: TranscriptQuery, transcript: FullTranscript, durationSeconds: number) {
    const creditsSpent = pricing.speechRecognition(durationSeconds);
    const balance = await this.options.credits.charge(chargeOf(query, creditsSpent));
    return { kind: "transcript" as const, transcript, creditsSpent, balance };
  }

  /** Queues a job, admitted for the account with the price its known length (declared or measured) gives. */
  private async startJob(
    query: TranscriptQuery,
    details: SourceDetails,
    work: JobWork,
    knownSeconds: number | null,
  ): Promise<TranscriptOutcome> {
    query.signal?.throwIfAborted();
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
    const queued = await queue.enqueue({ jobId, accountId: query.accountId, plan: query.plan });
    const estimatedCredits = knownSeconds === null ? pricing.minimum() : pricing.speechRecognition(knownSeconds);
    const videoId = details.itemId;
    const platform = details.ref.platform;
    try {
      await jobs.admit(
        {
          id: jobId,
          accountId: query.accountId,
          videoId,
          platform,
          request: query.body,
          work: work as unknown as Record<string, unknown>,
          docsBaseUrl: query.docsBaseUrl,
          callbackUrl: query.callbackUrl,
          requestId: query.requestId,
          operation: query.operation,
          estimatedCredits,
        },
        { maxUnfinishedJobs: plans[query.plan].maxUnfinishedJobs },
      );
    } catch (error) {
      // A worker would drop the message after waiting for its row; taking it back spares that wait.
      await queued.withdraw().catch((err: unknown) => {
        this.options.logger.warn({ err, job_id: jobId }, "the message of a refused job could not be withdrawn");
      });
      throw error;
    }
    return { kind: "job", jobId, videoId, platform };
  }
}
