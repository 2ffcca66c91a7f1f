export { ingestedText } from "./segment-text.ts";
export {
  ingestedWords,
  presentedTranscript,
  sourceTimedWords,
  timedSegments,
  type Word,
  withoutWords,
  wordsOf,
} from "./word-timing.ts";
