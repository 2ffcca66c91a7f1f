import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SpeechEngine, SpeechTranscript } from "../../adapters/asr/index.ts";
import { transcribeMedia } from "../../adapters/asr/index.ts";
import { probeDuration } from "../../adapters/media/decoder.ts";
import { isDrmProtected } from "../../adapters/media/protection.ts";
import { ApiError } from "../../errors.ts";
import type { PlatformSource, SourceDetails, SourceRef } from "../../sources/platform-source.ts";
import type { FullTranscript } from "../kept/index.ts";
import { roundedSeconds, roundedSegment, type TranscriptFields } from "../kept/index.ts";

/** The longest audio transcribed (docs/decisions.md, rule 13): four hours. */
export const maxAudioSeconds = 4 * 60 * 60;

/** 24-bit 96 kHz stereo PCM, the richest audio rate in use, in bytes per second. */
export const richestAudioBytesPerSecond = 576_000;

/**
 * The checks before recognition: DRM (`drm_protected`), a readable audio stream (`no_audio_stream`,
 * `invalid_input`) and the four-hour limit (`audio_too_long`). Answers the duration the container
 * declares, null when it declares none.
 */
export async function inspect(path: string, signal?: AbortSignal): Promise<number | null> {
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
export async function recognise(
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

/** A recognition as the wire's transcript, over the item's fields. */
export function fullTranscript(
  fields: TranscriptFields,
  engine: SpeechEngine,
  recognised: SpeechTranscript,
): FullTranscript {
  const segments = recognised.segments.map(roundedSegment);
  return {
    ...fields,
    duration: roundedSeconds(recognised.duration),
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
 * Whether media of this size lasts longer than `seconds` at any audio bitrate in use: 24-bit
 * 96 kHz stereo PCM, the richest, is 576 kB/s. Such media (long audio, or a video whose picture
 * makes it large) goes to a job without a download within the request to measure it.
 */
export function surelyLongerThan(bytes: number | null, seconds: number): boolean {
  return bytes !== null && bytes > seconds * richestAudioBytesPerSecond;
}

export function audioTooLong(seconds: number): ApiError {
  return new ApiError(
    "audio_too_long",
    `The media lasts ${Math.round(seconds / 60)} minutes; at most ${maxAudioSeconds / 3600} hours are transcribed. Nothing was charged.`,
  );
}

/** Downloads the media into a fresh temporary directory, runs `use` on the file, and removes it whatever happens. */
export async function withDownload<T>(
  workDir: string | undefined,
  source: PlatformSource,
  media: SourceRef,
  options: { maxBytes: number; signal?: AbortSignal; accountId: string; resolved?: SourceDetails },
  use: (path: string) => Promise<T>,
): Promise<T> {
  const dir = await mkdtemp(join(workDir ?? tmpdir(), "verbatim-media-"));
  try {
    const { path } = await source.download(media, dir, options);
    return await use(path);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
