import { decodeAudio, type MediaInput } from "../media/decoder.ts";
import type { TimedWord } from "../parsing/words.ts";

/** One stretch of speech, in seconds from the start of the media. */
export interface SpeechSegment {
  start: number;
  duration: number;
  text: string;
  /** Word timings, where the engine gives them (sherpa-onnx does; OpenAI-compatible servers asked for segments do not). */
  words?: TimedWord[];
}

/** Which engine and model produced a transcript; transcripts carry it. */
export interface SpeechEngineInfo {
  engine: "sherpa-onnx" | "openai";
  model: string;
  /** BCP-47 language the model recognises, or null when the engine detects it. */
  language: string | null;
  /** How the engine searched for words (`greedy_search`, `modified_beam_search/4`), or null when the engine does not say. */
  decoding: string | null;
}

export interface SpeechTranscript {
  info: SpeechEngineInfo;
  segments: SpeechSegment[];
  /** Seconds of audio recognised. */
  duration: number;
}

export interface TranscribeOptions {
  /** Stops the recognition; the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Called as audio is consumed, with the seconds processed so far (for job progress). */
  onProgress?: (secondsProcessed: number) => void;
}

/** The words of the utterance in progress: replaced as more is heard, until the utterance ends. */
export interface PartialWords {
  /** When the utterance began, in seconds from the start of the recognition. */
  start: number;
  text: string;
}

/**
 * Speech recognised as it is heard (a live stream): samples go in as they arrive, utterances
 * come out as they end, and the words of the one in progress can be read at any time.
 */
export interface LiveRecognition {
  /** Feeds 16 kHz mono samples; answers the utterances that ended, timed from the start of the recognition. */
  accept(samples: Float32Array): SpeechSegment[];
  /** The words of the utterance in progress; null when none are heard yet. */
  partial(): PartialWords | null;
  /** Ends the input: answers the utterance in progress, if it holds words. Nothing may be fed after. */
  finish(): SpeechSegment[];
}

/** Turns speech into timed text. */
export interface SpeechEngine {
  readonly info: SpeechEngineInfo;
  /** Transcribes 16 kHz mono float samples, consumed as they arrive. */
  transcribe(samples: AsyncIterable<Float32Array>, options?: TranscribeOptions): Promise<SpeechTranscript>;
  /** A cheap readiness check for health: resolves when the engine can take work, rejects saying why not. */
  check(): Promise<void>;
  /** Starts recognising a live stream; absent on an engine that only transcribes whole media (an OpenAI-compatible server). */
  startLive?(): LiveRecognition;
}

/** Decodes media with ffmpeg and streams it into the engine. Input problems reject as SourceErrors (see `decodeAudio`). */
export function transcribeMedia(
  engine: SpeechEngine,
  input: MediaInput,
  options: TranscribeOptions = {},
): Promise<SpeechTranscript> {
  const audio = decodeAudio(input, options.signal === undefined ? {} : { signal: options.signal });
  return engine.transcribe(audio.samples, options);
}
