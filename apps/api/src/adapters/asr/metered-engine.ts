import { performance } from "node:perf_hooks";
import type { ServiceMetrics } from "../../metrics.ts";
import type { SpeechEngine } from "./speech-engine.ts";

/** The engine, reporting each finished recognition's audio seconds and real-time factor to the metrics. */
export function meteredSpeechEngine(engine: SpeechEngine, metrics: ServiceMetrics): SpeechEngine {
  return {
    get info() {
      return engine.info;
    },
    async transcribe(samples, options) {
      const started = performance.now();
      const transcript = await engine.transcribe(samples, options);
      metrics.speechRecognised(transcript.duration, (performance.now() - started) / 1000);
      return transcript;
    },
    check: () => engine.check(),
    // A live session's audio is billed by the minute as it passes, not as a finished recognition.
    ...(engine.startLive ? { startLive: engine.startLive.bind(engine) } : {}),
  };
}
