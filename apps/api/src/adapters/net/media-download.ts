import { createWriteStream } from "node:fs";
import { rm } from "node:fs/promises";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { SourceError } from "../../sources/source-error.ts";
import { ByteLimit } from "./byte-limit.ts";
import { ThroughputFloor, type ThroughputFloorSettings } from "./throughput-floor.ts";

/**
 * The media download limits the operator may set: `VERBATIM_DOWNLOAD_MAX_BYTES`,
 * `VERBATIM_DOWNLOAD_TIMEOUT_MS`, `VERBATIM_DOWNLOAD_MIN_BYTES_PER_SECOND`. Every media download
 * obeys them, a podcast's file as much as a YouTube audio stream.
 */
export interface DownloadLimits {
  /** Bytes of one media download at most, counted as written; default 2 GiB. */
  downloadMaxBytes?: number;
  /** Milliseconds one media download may take; default 30 min. */
  downloadTimeoutMs?: number;
  /** The slowest a media download may run before it fails; default 16 KiB/s over every 30 s. */
  downloadFloor?: ThroughputFloorSettings;
}

/** The download limits with every default filled in. */
export type MediaDownloadLimits = Required<DownloadLimits>;

/** The limits set, and the defaults for the rest. */
export function withDownloadDefaults(limits: DownloadLimits): MediaDownloadLimits {
  return {
    downloadMaxBytes: limits.downloadMaxBytes ?? 2 * 1024 ** 3,
    downloadTimeoutMs: limits.downloadTimeoutMs ?? 30 * 60_000,
    downloadFloor: limits.downloadFloor ?? { bytesPerSecond: 16 * 1024, windowSeconds: 30 },
  };
}

/** Options of one media download. */
export interface DownloadOptions {
  signal?: AbortSignal;
  /** Stops once more than this was written, with `DownloadCapReached`: for a caller that wants only short media. */
  maxBytes?: number;
}

/** A download stopped at the caller's own `maxBytes`: the media is longer than the caller wanted, not broken. */
export class DownloadCapReached extends SourceError {
  constructor(readonly maxBytes: number) {
    super("media_too_large", `The media is larger than the ${maxBytes} bytes this download was allowed.`);
    this.name = "DownloadCapReached";
  }
}

/**
 * One media download within the limits: at most `downloadMaxBytes` written (or the caller's own
 * lower `maxBytes`, which ends it with `DownloadCapReached`), never slower than the floor, and
 * done within `downloadTimeoutMs`. However many requests the body takes (one, or YouTube's ranged
 * reads), they share one deadline and one count.
 */
export class MediaDownload {
  /** Aborts at the caller's signal or at the deadline: every request of the download takes it. */
  readonly signal: AbortSignal;
  private readonly deadline: AbortSignal;
  private readonly callerCap: number | null;

  /** `subject` names the media in error messages, as a sentence begins: "The media at https://...". */
  constructor(
    private readonly subject: string,
    private readonly limits: MediaDownloadLimits,
    private readonly options: DownloadOptions = {},
  ) {
    this.deadline = AbortSignal.timeout(limits.downloadTimeoutMs);
    this.signal = options.signal ? AbortSignal.any([options.signal, this.deadline]) : this.deadline;
    this.callerCap =
      options.maxBytes !== undefined && options.maxBytes < limits.downloadMaxBytes ? options.maxBytes : null;
  }

  /** Refuses media whose declared size is over the limit, before reading any of it. */
  refuseDeclaredSize(bytes: number | null): void {
    if (bytes !== null && bytes > this.maxBytes) throw this.tooLarge();
  }

  /**
   * Writes the body to `destinationPath`, never holding it in memory, and answers the bytes
   * written; a partial file is removed on failure. The body's own failures pass unchanged.
   */
  async save(body: Readable, destinationPath: string): Promise<number> {
    const sizeLimit = new ByteLimit(this.maxBytes, () => this.tooLarge());
    const floor = this.limits.downloadFloor;
    const tooSlow = () =>
      new SourceError(
        "timeout",
        `${this.subject} came slower than ${floor.bytesPerSecond} bytes per second over ${floor.windowSeconds} s (VERBATIM_DOWNLOAD_MIN_BYTES_PER_SECOND).`,
        { advice: null },
      );
    try {
      await pipeline([body, sizeLimit, new ThroughputFloor(floor, tooSlow), createWriteStream(destinationPath)], {
        signal: this.signal,
      });
      return sizeLimit.bytes;
    } catch (error) {
      await rm(destinationPath, { force: true });
      throw error;
    }
  }

  /** What a failure of the download means: once the deadline passed, that the download took too long. */
  failure(error: unknown): unknown {
    if (!this.deadline.aborted || this.options.signal?.aborted) return error;
    return new SourceError(
      "timeout",
      `${this.subject} did not download within ${this.limits.downloadTimeoutMs / 1000} s (VERBATIM_DOWNLOAD_TIMEOUT_MS).`,
      { cause: error, advice: null },
    );
  }

  private get maxBytes(): number {
    return this.callerCap ?? this.limits.downloadMaxBytes;
  }

  private tooLarge(): SourceError {
    if (this.callerCap !== null) return new DownloadCapReached(this.callerCap);
    return new SourceError(
      "media_too_large",
      `${this.subject} is larger than ${megabytes(this.limits.downloadMaxBytes)}, the most downloaded (VERBATIM_DOWNLOAD_MAX_BYTES).`,
    );
  }
}

export function megabytes(bytes: number): string {
  return `${Math.round((bytes / 1024 / 1024) * 10) / 10} MiB`;
}
