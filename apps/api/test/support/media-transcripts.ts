import type { FullTranscript } from "../../src/services/kept/transcript-store.ts";
import { textOf } from "../../src/services/renderings/transcript-renderings.ts";

/**
 * A transcript of a media file as speech recognition stores it, for tests and benches that put
 * one in the library directly: its address, duration and text follow from its id and segments.
 */
export function mediaTranscript(
  fields: Pick<FullTranscript, "video_id" | "title" | "channel" | "language" | "segments"> &
    Partial<Pick<FullTranscript, "platform" | "url">>,
): FullTranscript {
  const last = fields.segments.at(-1);
  return {
    kind: "transcript",
    url: `https://media.example.org/${fields.video_id}.mp3`,
    platform: "file",
    ...fields,
    duration: last ? last.start + last.duration : 0,
    source: "audio",
    caption_kind: null,
    thumbnail_url: null,
    speakers: null,
    speech_engine: null,
    text: textOf(fields.segments),
  };
}
