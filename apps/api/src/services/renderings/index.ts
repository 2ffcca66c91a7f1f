export { segmentsAsJson, TranscriptRenderer } from "./transcript-renderer.ts";
export { segmentsOf, type TranscriptJson } from "./transcript-rendering-tasks.ts";
export {
  type RenderingRequest,
  renderTranscript,
  requireWordTimes,
  type TranscriptFormat,
  type TranscriptRenderings,
} from "./transcript-renderings.ts";
export { readWeight, rendersInline, serialisedSize, type TranscriptSize } from "./transcript-size.ts";
