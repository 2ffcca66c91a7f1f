export { chargeOf, KeptTranscripts } from "./kept-transcripts.ts";
export { replacePassages, type StoredPassage, segmentsOfPassages } from "./library-passages.ts";
export {
  captionsTranscript,
  fieldsOf,
  keptCaptionsTranscript,
  keptFieldsOf,
  keptSpeechTranscript,
  libraryDeliveryOf,
  podcastField,
  roundedSeconds,
  roundedSegment,
  storedItemOf,
  type TranscriptFields,
} from "./transcript-fields.ts";
export {
  callOf,
  type SerialisedSegments,
  type TranscriptMode,
  type TranscriptOutcome,
  type TranscriptQuery,
} from "./transcript-requests.ts";
export { type FullTranscript, type StoredItem, TranscriptStore } from "./transcript-store.ts";
