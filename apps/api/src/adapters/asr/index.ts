import { OpenAiCompatibleSpeechEngine } from "./openai-compatible-speech-engine.ts";
import {
  DEFAULT_ACTIVE_PATHS,
  DEFAULT_DECODING,
  DEFAULT_MODEL_DIR,
  type SherpaDecoding,
  SherpaOnnxSpeechEngine,
} from "./sherpa-onnx-speech-engine.ts";
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

/**
 * The speech engine the configuration names. `VERBATIM_ASR_ENGINE` is `sherpa-onnx` (the
 * default: in-process, `VERBATIM_ASR_MODEL_DIR` or the shipped model, searched as
 * `VERBATIM_ASR_DECODING` and `VERBATIM_ASR_ACTIVE_PATHS` say) or `openai` (an
 * OpenAI-compatible server at `VERBATIM_ASR_URL` with `VERBATIM_ASR_MODEL`, default `whisper-1`,
 * `VERBATIM_ASR_API_KEY` and `VERBATIM_ASR_TIMEOUT_SECONDS` per request, default 300).
 */
export function createSpeechEngine(env: NodeJS.ProcessEnv = process.env): SpeechEngine {
  const engine = env.VERBATIM_ASR_ENGINE || "sherpa-onnx";
  switch (engine) {
    case "sherpa-onnx":
      return new SherpaOnnxSpeechEngine(env.VERBATIM_ASR_MODEL_DIR || DEFAULT_MODEL_DIR, sherpaDecodingFrom(env));
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

/**
 * The embedded engine's search: `VERBATIM_ASR_DECODING` is `greedy_search` or `modified_beam_search`,
 * and `VERBATIM_ASR_ACTIVE_PATHS` the hypotheses beam search keeps (a positive integer). Unset,
 * they take `DEFAULT_DECODING` and `DEFAULT_ACTIVE_PATHS`; paths given with greedy search are refused, since they would do nothing.
 */
export function sherpaDecodingFrom(env: NodeJS.ProcessEnv): SherpaDecoding {
  const method = env.VERBATIM_ASR_DECODING || DEFAULT_DECODING.method;
  const paths = env.VERBATIM_ASR_ACTIVE_PATHS;
  if (method === "greedy_search") {
    if (paths) {
      throw new Error(
        `VERBATIM_ASR_ACTIVE_PATHS applies to VERBATIM_ASR_DECODING=modified_beam_search only, not greedy_search.`,
      );
    }
    return { method };
  }
  if (method !== "modified_beam_search") {
    throw new Error(
      `VERBATIM_ASR_DECODING must be greedy_search or modified_beam_search, not ${JSON.stringify(method)}.`,
    );
  }
  if (!paths) {
    return { method, activePaths: DEFAULT_ACTIVE_PATHS };
  }
  const activePaths = Number(paths);
  if (!/^\d+$/.test(paths.trim()) || !(activePaths >= 1)) {
    throw new Error(`VERBATIM_ASR_ACTIVE_PATHS must be a positive integer, not ${JSON.stringify(paths)}.`);
  }
  return { method, activePaths };
}
