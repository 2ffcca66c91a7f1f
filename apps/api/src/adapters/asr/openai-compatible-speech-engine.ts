import { SourceError } from "../../sources/source-error.ts";
import { SAMPLE_RATE } from "../media/decoder.ts";
import type {
  SpeechEngine,
  SpeechEngineInfo,
  SpeechSegment,
  SpeechTranscript,
  TranscribeOptions,
} from "./speech-engine.ts";

/** How to reach an OpenAI-compatible transcription server (whisper.cpp's server, speaches, hosted services). */
export interface OpenAiCompatibleConfig {
  /** The server root; requests go to `{baseUrl}/v1/audio/transcriptions`. */
  baseUrl: string;
  /** The `model` field sent with every request. */
  model: string;
  /** Sent as a bearer token when set. */
  apiKey?: string;
  /** Milliseconds one chunk's request may take; default 5 minutes. */
  timeoutMs?: number;
  /** Largest uploaded file; default 24 MB, under the 25 MB OpenAI accepts. */
  maxChunkBytes?: number;
  /** `fetch` to use; tests pass their own. */
  fetch?: typeof fetch;
}

const WAV_HEADER_BYTES = 44;
const BYTES_PER_SAMPLE = 2;
const CHECK_TIMEOUT_MS = 3_000;

/** A transcription segment of a `verbose_json` answer. */
interface VerboseSegment {
  start: number;
  end: number;
  text: string;
}

/**
 * Speech recognition by an OpenAI-compatible `POST /v1/audio/transcriptions`. Audio is sent in
 * 16-bit 16 kHz mono WAV chunks cut by duration to stay under the upload limit, one request at a
 * time as the samples arrive; each chunk's segments are shifted by the chunk's offset. Cuts fall
 * every ~13 minutes at the default size, so the rare word split at a cut costs little.
 */
export class OpenAiCompatibleSpeechEngine implements SpeechEngine {
  readonly info: SpeechEngineInfo;
  private readonly endpoint: string;
  private readonly chunkSamples: number;
  private readonly timeoutMs: number;
  private readonly fetch: typeof fetch;

  constructor(private readonly config: OpenAiCompatibleConfig) {
    this.info = { engine: "openai", model: config.model, language: null, decoding: null };
    this.endpoint = `${config.baseUrl.replace(/\/+$/, "")}/v1/audio/transcriptions`;
    const maxChunkBytes = config.maxChunkBytes ?? 24 * 1024 * 1024;
    this.chunkSamples = Math.floor((maxChunkBytes - WAV_HEADER_BYTES) / BYTES_PER_SAMPLE);
    if (this.chunkSamples < SAMPLE_RATE) throw new Error("maxChunkBytes must hold at least one second of audio.");
    this.timeoutMs = config.timeoutMs ?? 300_000;
    this.fetch = config.fetch ?? fetch;
  }

  /** Resolves when the server answers HTTP at all (whisper.cpp's server has no `/v1/models`, so any status counts). */
  async check(): Promise<void> {
    try {
      const response = await this.fetch(`${this.config.baseUrl.replace(/\/+$/, "")}/v1/models`, {
        headers: this.headers(),
        signal: AbortSignal.timeout(CHECK_TIMEOUT_MS),
      });
      await response.body?.cancel();
    } catch (error) {
      throw new SourceError(
        "connection",
        `The speech recognition server at ${this.config.baseUrl} cannot be reached.`,
        {
          cause: error,
          advice: null,
        },
      );
    }
  }

  async transcribe(samples: AsyncIterable<Float32Array>, options: TranscribeOptions = {}): Promise<SpeechTranscript> {
    const segments: SpeechSegment[] = [];
    const chunk = new Int16Array(this.chunkSamples);
    let filled = 0;
    let chunkOffsetSamples = 0;

    const sendChunk = async () => {
      const offset = chunkOffsetSamples / SAMPLE_RATE;
      for (const segment of await this.transcribeChunk(chunk.subarray(0, filled), options.signal)) {
        segments.push({ ...segment, start: segment.start + offset });
      }
      chunkOffsetSamples += filled;
      filled = 0;
      options.onProgress?.(chunkOffsetSamples / SAMPLE_RATE);
    };

    options.signal?.throwIfAborted();
    for await (const piece of samples) {
      for (const sample of piece) {
        chunk[filled++] = Math.round(Math.max(-1, Math.min(1, sample)) * 0x7fff);
        if (filled === chunk.length) await sendChunk();
      }
      options.signal?.throwIfAborted();
    }
    if (filled > 0) await sendChunk();
    return { info: this.info, segments, duration: chunkOffsetSamples / SAMPLE_RATE };
  }

  private headers(): Record<string, string> {
    return this.config.apiKey ? { authorization: `Bearer ${this.config.apiKey}` } : {};
  }

  /** The segments of one chunk, in seconds from the chunk's start. */
  private async transcribeChunk(pcm: Int16Array, signal: AbortSignal | undefined): Promise<SpeechSegment[]> {
    const form = new FormData();
    form.append("file", new Blob([wavHeader(pcm.length), pcm], { type: "audio/wav" }), "audio.wav");
    form.append("model", this.config.model);
    form.append("response_format", "verbose_json");
    form.append("timestamp_granularities[]", "segment");
    const timeout = AbortSignal.timeout(this.timeoutMs);
    let response: Response;
    let body: string;
    try {
      response = await this.fetch(this.endpoint, {
        method: "POST",
        headers: this.headers(),
        body: form,
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
      body = await response.text();
    } catch (error) {
      signal?.throwIfAborted();
      if (timeout.aborted) {
        throw new SourceError("timeout", `The speech recognition server did not answer within ${this.timeoutMs} ms.`, {
          cause: error,
          advice: null,
        });
      }
      throw new SourceError("connection", `The speech recognition server at ${this.endpoint} cannot be reached.`, {
        cause: error,
        advice: null,
      });
    }
    if (!response.ok) {
      throw new SourceError("failed", `The speech recognition server answered ${response.status}.`, {
        cause: new Error(body.slice(0, 500)),
      });
    }
    return parseVerboseJson(body, pcm.length / SAMPLE_RATE);
  }
}

/** Segments of a `verbose_json` answer; an answer with text but no segments becomes one segment over the chunk. */
function parseVerboseJson(body: string, chunkSeconds: number): SpeechSegment[] {
  let answer: { text?: unknown; segments?: unknown };
  try {
    answer = JSON.parse(body) as typeof answer;
  } catch (error) {
    throw new SourceError("unparseable", "The speech recognition server's answer is not JSON.", {
      cause: error,
      advice: null,
    });
  }
  const listed: VerboseSegment[] = Array.isArray(answer.segments)
    ? (answer.segments as VerboseSegment[])
    : [{ start: 0, end: chunkSeconds, text: typeof answer.text === "string" ? answer.text : "" }];
  if (listed.some((segment) => typeof segment.start !== "number" || typeof segment.end !== "number")) {
    throw new SourceError("unparseable", "The speech recognition server's answer has segments without times.", {
      advice: null,
    });
  }
  return listed
    .map((segment) => ({
      start: segment.start,
      duration: Math.max(0, segment.end - segment.start),
      text: String(segment.text).trim(),
    }))
    .filter((segment) => segment.text.length > 0);
}

/** The 44-byte RIFF header of a 16-bit 16 kHz mono PCM WAV file of `sampleCount` samples. */
function wavHeader(sampleCount: number): ArrayBuffer {
  const dataBytes = sampleCount * BYTES_PER_SAMPLE;
  const header = new DataView(new ArrayBuffer(WAV_HEADER_BYTES));
  const ascii = (offset: number, text: string) => {
    for (let i = 0; i < text.length; i++) header.setUint8(offset + i, text.charCodeAt(i));
  };
  ascii(0, "RIFF");
  header.setUint32(4, 36 + dataBytes, true);
  ascii(8, "WAVE");
  ascii(12, "fmt ");
  header.setUint32(16, 16, true);
  header.setUint16(20, 1, true); // PCM
  header.setUint16(22, 1, true); // mono
  header.setUint32(24, SAMPLE_RATE, true);
  header.setUint32(28, SAMPLE_RATE * BYTES_PER_SAMPLE, true);
  header.setUint16(32, BYTES_PER_SAMPLE, true);
  header.setUint16(34, 16, true);
  ascii(36, "data");
  header.setUint32(40, dataBytes, true);
  return header.buffer;
}
