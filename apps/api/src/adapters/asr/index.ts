import { OpenAiCompatibleSpeechEngine } from "./openai-compatible-speech-engine.ts";
import { DEFAULT_MODEL_DIR, SherpaOnnxSpeechEngine } from "./sherpa-onnx-speech-engine.ts";
import type { SpeechEngine } from "./speech-engine.ts";

export { OpenAiCompatibleSpeechEngine } from "./openai-compatible-speech-engine.ts";
export { DEFAULT_MODEL_DIR, SherpaOnnxSpeechEngine } from "./sherpa-onnx-speech-engine.ts";
export type {
  SpeechEngine,
  SpeechEngineInfo,
  SpeechSegment,
  SpeechTranscript,
  SpeechWord,
  TranscribeOptions,
} from "./speech-engine.ts";
export { transcribeMedia } from "./speech-engine.ts";

/**
 * The speech engine the configuration names. `VERBATIM_ASR_ENGINE` is `sherpa-onnx` (the
 * default: in-process, `VERBATIM_ASR_MODEL_DIR` or the shipped model) or `openai` (an
 * OpenAI-compatible server at `VERBATIM_ASR_URL` with `VERBATIM_ASR_MODEL`, default `whisper-1`,
 * `VERBATIM_ASR_API_KEY` and `VERBATIM_ASR_TIMEOUT_SECONDS` per request, default 300).
 */
export function createSpeechEngine(env: NodeJS.ProcessEnv = process.env): SpeechEngine {
  const engine = env.VERBATIM_ASR_ENGINE || "sherpa-onnx";
  switch (engine) {
    case "sherpa-onnx":
      return new SherpaOnnxSpeechEngine(env.VERBATIM_ASR_MODEL_DIR || DEFAULT_MODEL_DIR);
    case "openai": {
      const baseUrl = env.VERBATIM_ASR_URL;
      if (!baseUrl) throw new Error("VERBATIM_ASR_ENGINE=openai needs VERBATIM_ASR_URL, the server's root URL.");
      const timeoutSeconds = Number(env.VERBATIM_ASR_TIMEOUT_SECONDS || 300);
      if (!(timeoutSeconds > 0)) throw new Error("VERBATIM_ASR_TIMEOUT_SECONDS must be a positive number of seconds.");
      return new OpenAiCompatibleSpeechEngine({
        baseUrl,
        model: env.VERBATIM_ASR_MODEL || "whisper-1",
        ...(env.VERBATIM_ASR_API_KEY ? { apiKey: env.VERBATIM_ASR_API_KEY } : {}),
        timeoutMs: timeoutSeconds * 1000,
      });
    }
    default:
      throw new Error(`VERBATIM_ASR_ENGINE must be sherpa-onnx or openai, not ${engine}.`);
  }
}
