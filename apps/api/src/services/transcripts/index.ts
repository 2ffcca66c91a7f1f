export { AudioTranscripts } from "./audio-transcripts.ts";
export { CaptionLanguageLists } from "./caption-languages.ts";
export { type TranscriptOutcome, Transcripts } from "./transcripts.ts";
export { VideoMetadataReader } from "./video-metadata.ts";
