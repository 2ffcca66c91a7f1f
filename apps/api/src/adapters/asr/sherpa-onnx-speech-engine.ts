import { readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, join } from "node:path";
import { packagePath } from "../../package-files.ts";
import { SAMPLE_RATE } from "../media/decoder.ts";
import { wordsOfPieces } from "../parsing/words.ts";
import type {
  LiveRecognition,
  PartialWords,
  SpeechEngine,
  SpeechEngineInfo,
  SpeechSegment,
  SpeechTranscript,
  TranscribeOptions,
} from "./speech-engine.ts";

/** The model shipped in the repository: the 5 MB English streaming Zipformer (models/zipformer-gigaspeech-3.3M/SOURCE.md). */
export const DEFAULT_MODEL_DIR = packagePath("models/zipformer-gigaspeech-3.3M");

/**
 * How the recognizer searches the transducer's outputs: the single best token at each step
 * (`greedy_search`), or the best `activePaths` hypotheses kept side by side (`modified_beam_search`).
 */
export type SherpaDecoding = { method: "greedy_search" } | { method: "modified_beam_search"; activePaths: number };

/** The hypotheses beam search keeps when no number is given: 2, 8 and 16 made more word errors (README, "Speech recognition accuracy"). */
export const DEFAULT_ACTIVE_PATHS = 4;

/**
 * The decoding chosen from `bench/asr.ts` over every recorded fixture (README, "Speech recognition
 * accuracy"): fewer word errors than greedy search, for up to half again its CPU time and no more memory.
 */
export const DEFAULT_DECODING: SherpaDecoding = {
  method: "modified_beam_search",
  activePaths: DEFAULT_ACTIVE_PATHS,
};

/** How a decoding is named in the engine's info: `greedy_search`, or `modified_beam_search/4` with its active paths. */
export function decodingName(decoding: SherpaDecoding): string {
  return decoding.method === "greedy_search" ? decoding.method : `${decoding.method}/${decoding.activePaths}`;
}

/** The files of a sherpa-onnx streaming transducer model. */
export interface TransducerModelFiles {
  encoder: string;
  decoder: string;
  joiner: string;
  tokens: string;
}

// The recognizer is fed 0.1 s at a time, as sherpa-onnx's own streaming examples do (docs/asr.md).
const FEED_SAMPLES = SAMPLE_RATE / 10;
// Trailing silence that lets the last utterance reach an endpoint before the input is closed (docs/asr.md).
const TAIL_PADDING = new Float32Array(Math.round(0.66 * SAMPLE_RATE));
// Noise added to every sample, like Kaldi's default dither (about 1 on the 16-bit scale; this is ±3):
// beam search hears "and" about once a second in digital silence, though not in greedy search nor in
// a faint noise floor. At -80 dBFS it changed no word of the recorded fixtures (README, "Speech recognition accuracy").
const DITHER_AMPLITUDE = 1e-4;
// A transducer emits a word's last token near the end of its sound; this much after it closes the word.
const LAST_TOKEN_TAIL_SECONDS = 0.3;

/**
 * How late the shipped model times a word's first token: a streaming transducer emits a token
 * once it has heard the word, here about one 0.32 s chunk (16 frames of 20 ms) after the word
 * begins. Measured on jfk.wav against whisper.cpp's word boundaries (README, "Speech recognition
 * accuracy"), the lag was 0.22 to 0.75 s, 0.39 s the median; word starts are moved back by the chunk.
 */
export const SHIPPED_MODEL_WORD_LAG_SECONDS = 0.32;

/** The part of sherpa-onnx-node's API used here (the package ships no type declarations). */
interface OnlineStream {
  acceptWaveform(wave: { samples: Float32Array; sampleRate: number }): void;
  inputFinished(): void;
}
export interface OnlineResult {
  tokens: string[];
  /** Token start times in seconds, relative to `start_time`. */
  timestamps: number[];
  /** Seconds from the start of the stream at which this utterance began. */
  start_time: number;
}
interface OnlineRecognizer {
  createStream(): OnlineStream;
  isReady(stream: OnlineStream): boolean;
  decode(stream: OnlineStream): void;
  isEndpoint(stream: OnlineStream): boolean;
  reset(stream: OnlineStream): void;
  getResult(stream: OnlineStream): OnlineResult;
}
const sherpaOnnx = createRequire(import.meta.url)("sherpa-onnx-node") as {
  OnlineRecognizer: new (config: Record<string, unknown>) => OnlineRecognizer;
};

/**
 * Speech recognition in-process with sherpa-onnx's streaming `OnlineRecognizer` and any
 * sherpa-onnx transducer model directory. The model loads on first use; one recognizer serves
 * every transcription, each with its own stream. `decoding` picks the search (default
 * `DEFAULT_DECODING`). Decoding runs on the calling thread in slices
 * of about 20 ms per second of audio, so a worker process (or thread) should own the engine.
 */
export class SherpaOnnxSpeechEngine implements SpeechEngine {
  readonly info: SpeechEngineInfo;
  private readonly files: TransducerModelFiles;
  private recognizer: OnlineRecognizer | undefined;

  /**
   * `wordLagSeconds` is how late the model times the start of a word, taken off every word's start
   * (never before its utterance's): the shipped model's measured lag for the shipped model, none
   * for another, whose lag is not known.
   */
  constructor(
    modelDir: string = DEFAULT_MODEL_DIR,
    private readonly decoding: SherpaDecoding = DEFAULT_DECODING,
    private readonly wordLagSeconds: number = modelDir === DEFAULT_MODEL_DIR ? SHIPPED_MODEL_WORD_LAG_SECONDS : 0,
  ) {
    if (
      decoding.method === "modified_beam_search" &&
      !(Number.isInteger(decoding.activePaths) && decoding.activePaths > 0)
    ) {
      throw new Error(`Beam search needs a positive whole number of active paths, not ${decoding.activePaths}.`);
    }
    this.files = findTransducerModelFiles(modelDir);
    // sherpa-onnx model directories do not declare a language; the shipped model and most streaming transducers are English.
    this.info = { engine: "sherpa-onnx", model: basename(modelDir), language: "en", decoding: decodingName(decoding) };
  }

  async check(): Promise<void> {
    this.loadRecognizer();
  }

  async transcribe(samples: AsyncIterable<Float32Array>, options: TranscribeOptions = {}): Promise<SpeechTranscript> {
    const recognizer = this.loadRecognizer();
    const stream = recognizer.createStream();
    const segments: SpeechSegment[] = [];
    const dither = ditherer();
    let samplesFed = 0;

    const decodeReady = () => {
      while (recognizer.isReady(stream)) recognizer.decode(stream);
    };
    const takeUtterance = (endSeconds: number) => {
      const segment = utteranceSegment(recognizer.getResult(stream), endSeconds, this.wordLagSeconds);
      if (segment) segments.push(segment);
      recognizer.reset(stream);
    };

    options.signal?.throwIfAborted();
    for await (const piece of samples) {
      for (let offset = 0; offset < piece.length; offset += FEED_SAMPLES) {
        const fed = dither(piece.subarray(offset, offset + FEED_SAMPLES));
        stream.acceptWaveform({ samples: fed, sampleRate: SAMPLE_RATE });
        samplesFed += fed.length;
        decodeReady();
        if (recognizer.isEndpoint(stream)) takeUtterance(samplesFed / SAMPLE_RATE);
      }
      options.signal?.throwIfAborted();
      options.onProgress?.(samplesFed / SAMPLE_RATE);
    }
    const duration = samplesFed / SAMPLE_RATE;
    stream.acceptWaveform({ samples: dither(TAIL_PADDING), sampleRate: SAMPLE_RATE });
    stream.inputFinished();
    decodeReady();
    takeUtterance(duration);
    return { info: this.info, segments, duration };
  }

  /**
   * Recognises a live stream with the same recognizer and settings as `transcribe`: fed in the
   * same 0.1 s pieces with the same dither, an utterance ends at the same endpoints, so the words
   * are those a recording of the stream would get, whatever sizes the samples arrive in.
   */
  startLive(): LiveRecognition {
    const recognizer = this.loadRecognizer();
    const stream = recognizer.createStream();
    const dither = ditherer();
    const lag = this.wordLagSeconds;
    let samplesFed = 0;
    let finished = false;
    const take = (endSeconds: number, into: SpeechSegment[]) => {
      const segment = utteranceSegment(recognizer.getResult(stream), endSeconds, lag);
      if (segment) into.push(segment);
      recognizer.reset(stream);
    };
    const feed = (piece: Float32Array) => {
      stream.acceptWaveform({ samples: dither(piece), sampleRate: SAMPLE_RATE });
      while (recognizer.isReady(stream)) recognizer.decode(stream);
    };
    let carried = new Float32Array(0);
    return {
      accept(samples) {
        if (finished) throw new Error("This live recognition has finished.");
        const ended: SpeechSegment[] = [];
        const all = carried.length > 0 ? concatenated(carried, samples) : samples;
        let offset = 0;
        for (; offset + FEED_SAMPLES <= all.length; offset += FEED_SAMPLES) {
          feed(all.subarray(offset, offset + FEED_SAMPLES));
          samplesFed += FEED_SAMPLES;
          if (recognizer.isEndpoint(stream)) take(samplesFed / SAMPLE_RATE, ended);
        }
        carried = all.slice(offset);
        return ended;
      },
      partial(): PartialWords | null {
        if (finished) return null;
        const segment = utteranceSegment(recognizer.getResult(stream), samplesFed / SAMPLE_RATE, lag);
        return segment ? { start: segment.start, text: segment.text } : null;
      },
      finish() {
        if (finished) return [];
        finished = true;
        const ended: SpeechSegment[] = [];
        if (carried.length > 0) {
          feed(carried);
          samplesFed += carried.length;
        }
        const duration = samplesFed / SAMPLE_RATE;
        stream.acceptWaveform({ samples: dither(TAIL_PADDING), sampleRate: SAMPLE_RATE });
        stream.inputFinished();
        while (recognizer.isReady(stream)) recognizer.decode(stream);
        take(duration, ended);
        return ended;
      },
    };
  }

  private loadRecognizer(): OnlineRecognizer {
    this.recognizer ??= new sherpaOnnx.OnlineRecognizer({
      featConfig: { sampleRate: SAMPLE_RATE, featureDim: 80 },
      modelConfig: {
        transducer: { encoder: this.files.encoder, decoder: this.files.decoder, joiner: this.files.joiner },
        tokens: this.files.tokens,
        // One thread: a second one made recognition slower on 2 cores (docs/asr.md); parallelism comes from running jobs side by side.
        numThreads: 1,
        provider: "cpu",
        debug: 0,
      },
      decodingMethod: this.decoding.method,
      ...(this.decoding.method === "modified_beam_search" ? { maxActivePaths: this.decoding.activePaths } : {}),
      enableEndpoint: 1,
      rule1MinTrailingSilence: 2.4,
      rule2MinTrailingSilence: 0.8,
      rule3MinUtteranceLength: 20,
    });
    return this.recognizer;
  }
}

/**
 * Adds uniform noise of ±DITHER_AMPLITUDE to copies of the samples it is given, from a linear
 * congruential sequence that starts afresh for each transcription: the same audio gives the same words.
 */
function ditherer(): (samples: Float32Array) => Float32Array {
  let state = 1;
  return (samples) => {
    const dithered = new Float32Array(samples.length);
    for (let index = 0; index < samples.length; index++) {
      state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
      dithered[index] = (samples[index] ?? 0) + DITHER_AMPLITUDE * (state / 2 ** 31 - 1);
    }
    return dithered;
  };
}

function concatenated(first: Float32Array, second: Float32Array): Float32Array {
  const joined = new Float32Array(first.length + second.length);
  joined.set(first);
  joined.set(second, first.length);
  return joined;
}

/**
 * The encoder, decoder, joiner and tokens of a transducer model directory, found by name
 * (upstream names carry epochs and chunk sizes: `encoder-epoch-99-avg-1-chunk-16-left-128.int8.onnx`).
 * Where both exist, the int8 file is chosen: it is the faster one on CPU.
 */
export function findTransducerModelFiles(modelDir: string): TransducerModelFiles {
  let names: string[];
  try {
    names = readdirSync(modelDir);
  } catch (error) {
    throw new Error(`The speech model directory ${modelDir} cannot be read.`, { cause: error });
  }
  const pick = (part: string) => {
    const candidates = names.filter((name) => name.startsWith(part) && name.endsWith(".onnx")).sort();
    const chosen = candidates.find((name) => name.includes(".int8.")) ?? candidates[0];
    if (chosen === undefined) {
      throw new Error(
        `The speech model directory ${modelDir} has no ${part}*.onnx: it must hold a sherpa-onnx streaming transducer (encoder, decoder, joiner, tokens.txt).`,
      );
    }
    return join(modelDir, chosen);
  };
  if (!names.includes("tokens.txt")) throw new Error(`The speech model directory ${modelDir} has no tokens.txt.`);
  return {
    encoder: pick("encoder"),
    decoder: pick("decoder"),
    joiner: pick("joiner"),
    tokens: join(modelDir, "tokens.txt"),
  };
}

/**
 * A segment from one utterance's BPE tokens: a token starting with a space or `▁` begins a word;
 * a word starts `wordLagSeconds` before its first token (not before the utterance) and ends where
 * the next begins, the last one shortly after its last token. Tokens come upper-case and
 * unpunctuated; they are lowercased.
 */
export function utteranceSegment(
  result: OnlineResult,
  endSeconds: number,
  wordLagSeconds: number,
): SpeechSegment | null {
  const pieces = result.tokens.map((token, index) => ({
    // A `▁` marks a word's start as a space does; tokens found in the tail padding are clamped to the end of the real audio.
    text: token.toLowerCase().replace(/^▁+/, " "),
    start: Math.max(
      Math.min(endSeconds, result.start_time),
      Math.min(endSeconds, result.start_time + (result.timestamps[index] ?? 0)) - wordLagSeconds,
    ),
  }));
  // The first token begins a word whether or not it is marked.
  const first = pieces[0];
  if (first) first.text = ` ${first.text}`;
  const lastTokenStart = Math.min(endSeconds, result.start_time + (result.timestamps.at(-1) ?? 0));
  const end = Math.max(lastTokenStart, Math.min(endSeconds, lastTokenStart + LAST_TOKEN_TAIL_SECONDS));
  const words = wordsOfPieces(pieces, end);
  const start = words[0]?.start;
  if (start === undefined) return null;
  return {
    start,
    duration: Math.max(0, Math.round((end - start) * 1000) / 1000),
    text: words.map((word) => word.text).join(" "),
    words,
  };
}
