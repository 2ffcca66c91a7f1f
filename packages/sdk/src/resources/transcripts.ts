import type { components } from "@verbatim/contract";
import { errorCodes } from "../../generated/errors.ts";
import { JobTimeoutError } from "../api-error.ts";
import { type BareOr, bodyOf, type JsonBody } from "../bare.ts";
import { apiErrorFrom } from "../errors.ts";
import { Paginator } from "../pagination.ts";
import { ApiResource } from "../resource.ts";
import { type FetchOutcome, type Result, type SuccessBody, unwrap } from "../result.ts";
import { type RequestOptions, sleep } from "../transport.ts";

/** What `POST /transcripts/video` takes. */
export type TranscriptRequest = JsonBody<"fetchVideoTranscript">;
/** What `POST /transcripts/batch` takes. */
export type BatchRequest = JsonBody<"fetchTranscriptsBatch">;
/** What `POST /transcripts/channel` takes. */
export type ChannelRequest = JsonBody<"fetchChannelVideos">;
/** What `POST /transcripts/playlist` takes. */
export type PlaylistRequest = JsonBody<"fetchPlaylistVideos">;
/** What `POST /transcripts/search` takes. */
export type SearchRequest = JsonBody<"searchVideos">;
/** What `POST /transcripts/languages` takes. */
export type LanguagesRequest = JsonBody<"listTranscriptLanguages">;

/** A transcript answered at once (200). */
export type TranscriptResult = Result<SuccessBody<"fetchVideoTranscript", 200>>;
/** Speech recognition continues as a job (202): poll it with `waitForJob`. */
export type JobAcceptedResult = Result<SuccessBody<"fetchVideoTranscript", 202>>;
/** A job's state, as `GET /transcripts/jobs/{jobId}` answers it. */
export type JobStatusResult = Result<SuccessBody<"getTranscriptJob">>;
/** A finished job: its transcript (text and segments) and what completing it charged. */
export type CompletedJobResult = Extract<JobStatusResult, { status: "completed" }>;
/** A transcript that is ready: answered at once (200), or the completed job a 202 started. Both carry `data` and `usage`. */
export type FinishedTranscriptResult = TranscriptResult | CompletedJobResult;
/** One page of a channel, playlist or search. */
export type VideoPageResult = Result<SuccessBody<"fetchChannelVideos">>;
/** The caption tracks of a source, with the languages each can be translated into. */
export type LanguagesResult = Result<SuccessBody<"listTranscriptLanguages">>;
/** A row of a channel, playlist or search page. */
export type ListRow = components["schemas"]["ListRow"];

/** How `waitForJob` polls. */
export interface WaitOptions {
  /** The first wait between polls, in milliseconds; later waits grow by half up to 10 s. Default: 1,000. */
  pollInterval?: number;
  /** How long to wait in all, in milliseconds, before `JobTimeoutError`. Default: 30 minutes. */
  timeout?: number;
  /** Stops waiting (the job goes on); the call rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Called after every poll with the job's state and, when known, its progress from 0 to 1. */
  onProgress?: (progress: JobProgress) => void;
  /** Poll with `?words=true`: the finished transcript's words are timed. `video` sets it when its request asks `words`. */
  words?: boolean;
}

/** What `onProgress` is told after each poll. */
export interface JobProgress {
  jobId: string;
  status: "processing" | "completed" | "failed";
  /** Share of the work done, 0 to 1, when the server knows it. */
  progress: number | null;
}

const longestPollIntervalMs = 10_000;

/** Transcripts, batches, lists and jobs. */
export class Transcripts extends ApiResource {
  /**
   * The transcript of one video (YouTube, TikTok, Instagram, X, Vimeo, Facebook, Dailymotion,
   * Twitch, Loom), podcast episode, feed or media file. Captions and
   * publisher transcripts answer at once (200); speech recognition of long media continues as a
   * job (202), unless `wait` is set (`true`, or how to wait): the call then polls the job and
   * answers its transcript. A string is the `video` of a request with every other field at its default.
   */
  video(
    request: BareOr<TranscriptRequest>,
    options: RequestOptions & { wait: true | WaitOptions },
  ): Promise<FinishedTranscriptResult>;
  video(
    request: BareOr<TranscriptRequest>,
    options?: RequestOptions & { wait?: false },
  ): Promise<TranscriptResult | JobAcceptedResult>;
  async video(
    request: BareOr<TranscriptRequest>,
    options: RequestOptions & { wait?: boolean | WaitOptions } = {},
  ): Promise<TranscriptResult | JobAcceptedResult | CompletedJobResult> {
    const { wait, ...requestOptions } = options;
    const body = bodyOf<TranscriptRequest>(request, "video");
    const answer = await unwrap<SuccessBody<"fetchVideoTranscript", 200 | 202>>(
      this.client.raw.POST("/transcripts/video", { body, ...this.callInit(requestOptions) }),
    );
    if (!wait || !("job_id" in answer)) return answer;
    return this.waitForJob(answer, {
      signal: requestOptions.signal,
      ...(body.words === true ? { words: true } : {}),
      ...(wait === true ? {} : wait),
    });
  }

  /**
   * The caption tracks of a source: each track's language, name and kind, and the languages
   * `translate_to` can ask of it. Free (0 credits); on the request allowance. A source without
   * captions answers an empty list. A string is the `video`.
   */
  languages(request: BareOr<LanguagesRequest>, options?: RequestOptions): Promise<LanguagesResult> {
    return unwrap(
      this.client.raw.POST("/transcripts/languages", {
        body: bodyOf<LanguagesRequest>(request, "video"),
        ...this.callInit(options),
      }),
    );
  }

  /** Up to 500 transcripts in one request (50 on Free, Basic and Pro): one row per item, in order. */
  batch(request: BatchRequest, options?: RequestOptions): Promise<Result<SuccessBody<"fetchTranscriptsBatch">>> {
    return unwrap(
      this.client.raw.POST("/transcripts/batch", {
        body: request,
        ...this.callInit(options),
      }),
    );
  }

  /**
   * One page of a list, newest first: a YouTube channel's uploads (or a search inside it), a
   * TikTok or Instagram profile's posts, or a feed's episodes (`data.platform` says which). Each
   * row's `url` goes to `video()` as is. A string is the `channel`.
   */
  channel(request: BareOr<ChannelRequest>, options?: RequestOptions): Promise<VideoPageResult> {
    return unwrap(
      this.client.raw.POST("/transcripts/channel", {
        body: bodyOf<ChannelRequest>(request, "channel"),
        ...this.callInit(options),
      }),
    );
  }

  /** One page of a playlist. A string is the `playlist`. */
  playlist(request: BareOr<PlaylistRequest>, options?: RequestOptions): Promise<VideoPageResult> {
    return unwrap(
      this.client.raw.POST("/transcripts/playlist", {
        body: bodyOf<PlaylistRequest>(request, "playlist"),
        ...this.callInit(options),
      }),
    );
  }

  /**
   * One page of a search. `platform` is `youtube` (the default), `apple` (Apple Podcasts links)
   * or `rss` (episodes' audio files, shows' feeds), both from Apple's podcast directory, or
   * `spotify` (Spotify links) where the server has Spotify's Web API credentials; TikTok and
   * Instagram have no public search: each answers 422 `unsupported_platform`, as `spotify` does
   * elsewhere. A string is the `query`.
   */
  search(request: BareOr<SearchRequest>, options?: RequestOptions): Promise<VideoPageResult> {
    return unwrap(
      this.client.raw.POST("/transcripts/search", {
        body: bodyOf<SearchRequest>(request, "query"),
        ...this.callInit(options),
      }),
    );
  }

  /**
   * Every row of a channel, profile or feed, page after page (each page is a charged request);
   * stops at `since_video_id`, a row's `videoId` or `url`.
   */
  channelVideos(
    request: BareOr<ChannelRequest>,
    options?: RequestOptions,
  ): Paginator<VideoPageResult["data"], ListRow> {
    const { cursor, ...rest } = bodyOf<ChannelRequest>(request, "channel");
    return new Paginator((next) => this.channel({ ...rest, cursor: next }, options), rowsOf, cursor);
  }

  /** Every row of a playlist, page after page; stops at `since_video_id`. */
  playlistVideos(
    request: BareOr<PlaylistRequest>,
    options?: RequestOptions,
  ): Paginator<VideoPageResult["data"], ListRow> {
    const { cursor, ...rest } = bodyOf<PlaylistRequest>(request, "playlist");
    return new Paginator((next) => this.playlist({ ...rest, cursor: next }, options), rowsOf, cursor);
  }

  /** Every result of a search, page after page; stops at `since_video_id`. */
  searchVideos(request: BareOr<SearchRequest>, options?: RequestOptions): Paginator<VideoPageResult["data"], ListRow> {
    const { cursor, ...rest } = bodyOf<SearchRequest>(request, "query");
    return new Paginator((next) => this.search({ ...rest, cursor: next }, options), rowsOf, cursor);
  }

  /**
   * A speech recognition job's state. A poll: free, on the polling allowance. A failed job is a
   * result with its `error`, not a throw. With `words`, a completed job's words are timed.
   */
  job(jobId: string, options: RequestOptions & { words?: boolean } = {}): Promise<JobStatusResult> {
    const { words, ...requestOptions } = options;
    const poll = this.client.raw.GET("/transcripts/jobs/{jobId}", {
      params: { path: { jobId }, ...(words ? { query: { words: true } } : {}) },
      ...this.callInit(requestOptions),
    });
    // openapi-fetch drops `data: null` from the failed state's type; the contract's body has it.
    return unwrap(poll as Promise<FetchOutcome<SuccessBody<"getTranscriptJob">>>);
  }

  /**
   * Polls a job until it completes and answers its transcript, or throws its error if it fails.
   * Takes a job id or the 202 answer that started it. Waits grow from `pollInterval` by half, up
   * to 10 s, and never poll faster than the polling allowance the server reports.
   */
  async waitForJob(job: string | { job_id: string }, options: WaitOptions = {}): Promise<CompletedJobResult> {
    const jobId = typeof job === "string" ? job : job.job_id;
    const started = Date.now();
    const deadline = started + (options.timeout ?? 30 * 60_000);
    let interval = options.pollInterval ?? 1_000;
    for (;;) {
      const state = await this.job(jobId, {
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.words ? { words: true } : {}),
      });
      options.onProgress?.({
        jobId,
        status: state.status,
        progress: state.status === "completed" ? 1 : "progress" in state ? (state.progress ?? null) : null,
      });
      if (state.status === "completed") return state;
      if (state.status === "failed") {
        throw apiErrorFrom(state.error, {
          status: errorCodes[state.error.code as keyof typeof errorCodes]?.status ?? 500,
          requestId: state.requestId,
          retryAfter: null,
        });
      }
      const wait = Math.max(interval, allowanceSpacingMs(state.rateLimit));
      if (Date.now() + wait > deadline) throw new JobTimeoutError(jobId, Date.now() - started);
      await sleep(wait, options.signal);
      interval = Math.min(longestPollIntervalMs, interval * 1.5);
    }
  }
}

function rowsOf(page: VideoPageResult["data"]): ListRow[] {
  return page.videos;
}

/**
 * The wait that keeps polling within the allowance: when the window is spent, until it frees a
 * poll; otherwise at least the even share of a minute that the limit allows.
 */
function allowanceSpacingMs(rateLimit: JobStatusResult["rateLimit"]): number {
  if (rateLimit === null || rateLimit.limit <= 0) return 0;
  if (rateLimit.remaining <= 0) return Math.max(0, rateLimit.reset * 1000 - Date.now());
  return Math.ceil(60_000 / rateLimit.limit);
}
