import type { ErrorCode, ResponseBody, Schema, V1OperationId, V1ResponseBody, V1Schema } from "@verbatim/contract";
import { reasonOf, v1CodeOf } from "./errors.ts";

/**
 * The v1 answers, made from the v2 answers of the same routes. Each function takes the body a
 * route sent for v2 and gives the body v1 clients expect: the same facts, the older shapes.
 */

type V2Transcript = Schema<"Transcript"> | Schema<"FullTranscript">;

/** The v1 path of a job's poll. */
function v1PollPath(jobId: string): string {
  return `/api/v1/transcripts/jobs/${jobId}`;
}

function transcriptOf(transcript: V2Transcript): V1Schema<"TranscriptData"> {
  return {
    kind: "transcript",
    video_id: transcript.video_id,
    platform: transcript.platform,
    title: transcript.title,
    thumbnailUrl: transcript.thumbnail_url,
    ...(transcript.speakers === null ? {} : { diarized: true }),
    ...(transcript.text === undefined ? {} : { text: transcript.text }),
    ...(transcript.segments === undefined ? {} : { segments: transcript.segments }),
    ...(transcript.podcast === undefined ? {} : { podcast: podcastOf(transcript.podcast) }),
  };
}

/**
 * v1's `resolved_via` knows `rss` and `direct` only: an episode reached through Apple's
 * directory, a Spotify show or an episode page was read from its feed all the same.
 */
function podcastOf(podcast: Schema<"PodcastInfo">): V1Schema<"PodcastInfo"> {
  return { ...podcast, resolved_via: podcast.resolved_via === "direct" ? "direct" : "rss" };
}

function fetchVideoTranscript(
  status: number,
  body: ResponseBody<"fetchVideoTranscript", 200> | ResponseBody<"fetchVideoTranscript", 202>,
): V1ResponseBody<"fetchVideoTranscript", 200> | V1ResponseBody<"fetchVideoTranscript", 202> {
  if (status === 202 && "job_id" in body) {
    return { ...body, poll_url: v1PollPath(body.job_id) };
  }
  const { data, ...envelope } = body as ResponseBody<"fetchVideoTranscript", 200>;
  return { ...envelope, data: transcriptOf(data) };
}

function getTranscriptJob(body: ResponseBody<"getTranscriptJob", 200>): V1ResponseBody<"getTranscriptJob", 200> {
  const common = { request_id: body.request_id, job_id: body.job_id };
  switch (body.status) {
    case "completed":
      return { ...common, ok: true, status: "completed", data: transcriptOf(body.data), usage: body.usage };
    case "failed":
      return {
        ...common,
        ok: false,
        status: "failed",
        data: null,
        error: { code: v1CodeOf(body.error.code as ErrorCode), message: body.error.message },
      };
    default:
      return { ...common, ok: true, status: "processing", data: null };
  }
}

/** A v2 failure that means "reached, but nothing to read" is a v1 `no_transcript` row. */
const nothingToRead: ReadonlySet<ErrorCode> = new Set([
  "no_captions",
  "captions_disabled",
  "no_speech",
  "no_audio_stream",
  "live_stream",
  "was_live",
]);

type V2BatchRow = ResponseBody<"fetchTranscriptsBatch", 200>["data"]["results"][number];

function batchRowOf(row: V2BatchRow): V1Schema<"BatchRow"> {
  const empty = { title: null, text: null, segments: null, bytes: 0 };
  switch (row.outcome) {
    case "ok":
      return {
        video_id: row.video_id,
        outcome: "ok",
        reason: null,
        message: null,
        title: row.title,
        text: row.text,
        segments: row.segments,
        bytes: Buffer.byteLength(row.text),
      };
    case "processing":
      return {
        video_id: row.video_id,
        outcome: "processing",
        reason: null,
        message: "Transcribing the audio. Send the batch again later to collect the text, or poll poll_url.",
        job_id: row.job_id,
        poll_url: v1PollPath(row.job_id),
        ...empty,
      };
    default: {
      const code = row.error.code as ErrorCode;
      return {
        video_id: row.video_id,
        outcome: nothingToRead.has(code) ? "no_transcript" : "error",
        reason: reasonOf(code) ?? code,
        message: row.error.message,
        ...empty,
      };
    }
  }
}

function fetchTranscriptsBatch(
  body: ResponseBody<"fetchTranscriptsBatch", 200>,
): V1ResponseBody<"fetchTranscriptsBatch", 200> {
  return { ...body, data: { kind: "transcript_batch", results: body.data.results.map(batchRowOf) } };
}

const listSources = { channel: "channel_videos", playlist: "playlist", search: "search" } as const;

type V2ListBody = ResponseBody<"fetchChannelVideos" | "fetchPlaylistVideos" | "searchVideos", 200>;

function videoList(body: V2ListBody): V1ResponseBody<"fetchChannelVideos", 200> {
  const { data } = body;
  return {
    ...body,
    data: {
      kind: "video_list",
      source: listSources[data.source],
      // v1 lists videos only: its search has no result types.
      videos: data.videos.flatMap((row) =>
        "videoId" in row
          ? [
              {
                videoId: row.videoId,
                title: row.title,
                thumbnailUrl: row.thumbnailUrl,
                duration: row.duration,
                channel: row.channel,
              },
            ]
          : [],
      ),
      next_cursor: data.next_cursor,
    },
  };
}

function me(body: ResponseBody<"me", 200>): V1ResponseBody<"me", 200> {
  return { ...body, data: { kind: "me", user_id: body.data.user_id, credits: body.data.credits } };
}

function healthCheck(body: ResponseBody<"healthCheck", 200>): V1ResponseBody<"healthCheck", 200> {
  return { status: body.status, service: body.service, version: body.version, time: body.time };
}

/** The v1 body of a route's successful answer (any status under 400) for v2. */
export function v1BodyOf(operationId: V1OperationId, status: number, body: unknown): unknown {
  switch (operationId) {
    case "fetchVideoTranscript":
      return fetchVideoTranscript(status, body as Parameters<typeof fetchVideoTranscript>[1]);
    case "getTranscriptJob":
      return getTranscriptJob(body as ResponseBody<"getTranscriptJob", 200>);
    case "fetchTranscriptsBatch":
      return fetchTranscriptsBatch(body as ResponseBody<"fetchTranscriptsBatch", 200>);
    case "fetchChannelVideos":
    case "fetchPlaylistVideos":
    case "searchVideos":
      return videoList(body as V2ListBody);
    case "me":
      return me(body as ResponseBody<"me", 200>);
    case "healthCheck":
      return healthCheck(body as ResponseBody<"healthCheck", 200>);
  }
}
