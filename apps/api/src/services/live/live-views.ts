import type { ErrorCode, Schema } from "@verbatim/contract";
import type { SpeechEngineInfo, SpeechSegment } from "../../adapters/asr/index.ts";
import { ApiError, type ErrorExtra } from "../../errors.ts";
import type { LiveStreamRef } from "../../sources/live/live-source.ts";
import type { FullTranscript } from "../kept/index.ts";
import { ingestedText, ingestedWords } from "../words/index.ts";
import type { LiveSessionRow, RecordedLiveEvent } from "./live-store.ts";

export type LiveSessionView = Schema<"LiveSession">;
export type LiveSegmentView = Schema<"LiveSegment">;
export type LiveSourceView = Schema<"LiveSource">;

/** Why a session failed, as stored: an error of the table, shown with its number and docs. */
export interface LiveFailure {
  code: ErrorCode;
  message: string;
  extra?: ErrorExtra;
}

/** The fields of a `live.segment` event: times to the millisecond on the session's timeline, and its words. */
export function segmentFields(segment: SpeechSegment, offset: number): Omit<LiveSegmentView, "seq"> {
  const shift = (seconds: number) => Math.round((seconds + offset) * 1000) / 1000;
  return {
    start: shift(segment.start),
    duration: Math.round(segment.duration * 1000) / 1000,
    text: ingestedText(segment.text),
    words: ingestedWords(segment.words ?? []).map((word) => ({
      text: word.text,
      start: shift(word.start),
      duration: Math.round(word.duration * 1000) / 1000,
    })),
  };
}

/** A `live.segment` event as the segments of `GET /live/{id}` list it. */
export function segmentOfEvent(event: RecordedLiveEvent): LiveSegmentView {
  const body = event.body as LiveSegmentView;
  return { seq: event.seq, start: body.start, duration: body.duration, text: body.text, words: body.words };
}

/** The session as the API shows it. */
export function sessionView(row: LiveSessionRow): LiveSessionView {
  const source = row.source as unknown as LiveSourceView;
  return {
    kind: "live_session",
    id: row.id,
    status: row.status as LiveSessionView["status"],
    end_reason: (row.endReason ?? null) as LiveSessionView["end_reason"],
    error: row.error
      ? (failureError(row.error as unknown as LiveFailure).toBody(row.docsBaseUrl) as LiveSessionView["error"])
      : null,
    source,
    language: row.language,
    partials: row.partials,
    max_minutes: row.maxMinutes,
    webhook_url: row.webhookUrl,
    events_url: `/api/v2/live/${row.id}/events`,
    poll_url: `/api/v2/live/${row.id}`,
    created_at: row.createdAt.toISOString(),
    started_at: row.startedAt?.toISOString() ?? null,
    ended_at: row.endedAt?.toISOString() ?? null,
    audio_seconds: Math.round(row.audioSeconds * 1000) / 1000,
    credits_spent: row.chargedMinutes,
    last_event_seq: Number(row.lastSeq),
    library: row.libraryEntry ? { id: row.libraryEntry, replaceable_by_captions: recordingOf(row) !== null } : null,
  };
}

export function failureError(failure: LiveFailure): ApiError {
  return new ApiError(failure.code, failure.message, failure.extra === undefined ? {} : { extra: failure.extra });
}

/** What a failure is stored as: the error's code, message and extra field. */
export function failureOf(error: ApiError): LiveFailure {
  return { code: error.code, message: error.message, ...(error.extra === undefined ? {} : { extra: error.extra }) };
}

/** The item the session's stream is recorded as, when its source says (`LiveStreamRef.recording`). */
function recordingOf(row: LiveSessionRow): string | null {
  const stream = row.stream as unknown as Partial<LiveStreamRef>;
  return stream.kind === "platform" ? (stream.recording ?? null) : null;
}

/**
 * The session's transcript, for the library: its final segments in order, timed from the start of
 * the session. A broadcast recorded as an item is that item's entry (a later fetch of its captions
 * replaces it); any other session is an entry of its own, under its id. Null when it heard no words.
 */
export function liveTranscript(
  row: LiveSessionRow,
  segments: readonly LiveSegmentView[],
  engine: SpeechEngineInfo,
): FullTranscript | null {
  const spoken = segments.filter((segment) => segment.text.trim() !== "");
  if (spoken.length === 0) return null;
  const source = row.source as unknown as LiveSourceView;
  const last = spoken.at(-1);
  const duration = Math.max(row.timelineSeconds, last ? last.start + last.duration : 0);
  return {
    kind: "transcript",
    video_id: recordingOf(row) ?? row.id,
    url: source.url,
    platform: source.platform,
    title: source.title,
    channel: source.channel,
    duration: Math.round(duration * 1000) / 1000,
    language: row.language,
    source: "audio",
    caption_kind: null,
    thumbnail_url: null,
    speakers: null,
    speech_engine: {
      engine: engine.engine,
      model: engine.model,
      ...(engine.decoding === null ? {} : { decoding: engine.decoding }),
    },
    text: spoken.map((segment) => segment.text).join(" "),
    segments: spoken.map((segment) => ({
      start: segment.start,
      duration: segment.duration,
      text: segment.text,
      words: segment.words,
    })),
  };
}
