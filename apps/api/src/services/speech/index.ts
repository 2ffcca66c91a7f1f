export { type FinishedJob, type JobFollower, jobOutcomeOf, type TranscriptJobRow } from "./job-rows.ts";
export { SpeechJobRunner } from "./speech-jobs.ts";
export { SpeechRecognition } from "./speech-recognition.ts";
export { TranscriptJobs } from "./transcript-jobs.ts";
export type { QueuedTranscription, TranscriptionMessage, TranscriptionQueue } from "./transcription-queue.ts";
