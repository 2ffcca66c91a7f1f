import { OpenAiCompatibleSpeechEngine } from "./openai-compatible-speech-engine.ts";
import { type SherpaDecoding, SherpaOnnxSpeechEngine } from "./sherpa-onnx-speech-engine.ts";
import type { SpeechEngine } from "./speech-engine.ts";

export { OpenAiCompatibleSpeechEngine } from "./openai-compatible-speech-engine.ts";
export { SherpaOnnxSpeechEngine } from "./sherpa-onnx-speech-engine.ts";
export type {
  LiveRecognition,
  PartialWords,
  SpeechEngine,
  SpeechEngineInfo,
  SpeechSegment,
  SpeechTranscript,
  TranscribeOptions,
} from "./speech-engine.ts";
export { transcribeMedia } from "./speech-engine.ts";

/** The speech engine a deployment runs, as config.ts reads it from the environment (`VERBATIM_ASR_*`). */
export type SpeechEngineConfig =
  | { engine: "sherpa-onnx"; modelDir: string; decoding: SherpaDecoding }
  | { engine: "openai"; baseUrl: string; model: string; apiKey?: string; timeoutMs: number };

/** The speech engine the configuration names: the in-process sherpa-onnx model, or an OpenAI-compatible server. */
export function createSpeechEngine(config: SpeechEngineConfig): SpeechEngine {
  if (config.engine === "sherpa-onnx") return new SherpaOnnxSpeechEngine(config.modelDir, config.decoding);
  const { engine: _engine, ...client } = config;
  return new OpenAiCompatibleSpeechEngine(client);
}
