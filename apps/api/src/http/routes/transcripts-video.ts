import type { RequestBody } from "@verbatim/contract";
import { parseVideoReference } from "../../adapters/youtube/video-reference.ts";
import type { AppDeps, YoutubeDeps } from "../../deps.ts";
import { ApiError } from "../../errors.ts";
import { usageBlock } from "../../services/credits.ts";
import { pricing } from "../../services/pricing.ts";
import { type TranscriptMode, VideoTranscripts, type YoutubeTranscript } from "../../services/video-transcripts.ts";
import { authOf } from "../auth.ts";
import { requestIdOf } from "../locals.ts";
import { bodyOf, type LiveRoute, send, wasSent } from "../route.ts";
import { holdExtractionSlot } from "../slots.ts";

type TranscriptRequest = RequestBody<"fetchVideoTranscript">;

/** `POST /transcripts/video` for YouTube input: captions (1 credit), from our store when fetched before. */
export function fetchVideoTranscript(deps: AppDeps, youtube: YoutubeDeps): LiveRoute {
  const transcripts = new VideoTranscripts(deps.platform.store, youtube.captions, deps.now, youtube.speech);
  return {
    operationId: "fetchVideoTranscript",
    guards: [holdExtractionSlot(deps)],
    handler: async (req, res) => {
      const body = bodyOf<TranscriptRequest>(req);
      const videoId = youtubeVideoIdOf(body.video);
      const mode = modeOf(body, wasSent(res, "mode"));
      const auth = authOf(res);
      deps.platform.credits.requireAtLeast(auth.credits, pricing.minimum());
      const transcript = await transcripts.transcribe(videoId, {
        mode,
        ...(body.language === undefined ? {} : { language: body.language }),
      });
      const withTimestamps = body.timestamps === undefined || body.timestamps === true || body.timestamps === "segment";
      // `usage.bytes` counts the words returned either way: the joined text.
      const text = transcript.segments.map((segment) => segment.text).join(" ");
      const credits = pricing.captions();
      const balance = await deps.platform.credits.charge({
        accountId: auth.accountId,
        credits,
        operation: "POST /transcripts/video",
        requestId: requestIdOf(res),
      });
      send(res, "fetchVideoTranscript", 200, {
        ok: true,
        request_id: requestIdOf(res),
        data: {
          ...transcriptFields(transcript),
          ...(withTimestamps ? { segments: transcript.segments } : { text }),
        },
        usage: usageBlock(credits, balance, Buffer.byteLength(text)),
      });
    },
  };
}

/** The YouTube video a request names; other sources wait for the audio issue. */
function youtubeVideoIdOf(video: string): string {
  const reference = parseVideoReference(video);
  switch (reference.kind) {
    case "youtube":
      return reference.videoId;
    case "youtube-without-video":
      throw new ApiError("invalid_input", `"${video}" is a YouTube address but names no video.`);
    case "other-url":
      throw new ApiError(
        "unsupported_platform",
        `${reference.url.hostname} is not YouTube. Podcasts, feeds and media files (audio sources) are not supported yet.`,
      );
    case "malformed":
      throw new ApiError("invalid_input", `"${video}" is neither a YouTube video id nor a URL.`);
  }
}

/** `mode`, or its deprecated alias `ai_fallback`; both together are ambiguous. */
function modeOf(body: TranscriptRequest, modeSent: boolean): TranscriptMode {
  if (body.ai_fallback !== undefined && modeSent) {
    throw new ApiError("invalid_request", "Send either mode or the deprecated ai_fallback, not both.", {
      extra: { issues: [{ path: "/body/ai_fallback", message: "ai_fallback is a legacy alias of mode; drop it." }] },
    });
  }
  if (body.ai_fallback === true) return "audio";
  return body.mode ?? "auto";
}

function transcriptFields(transcript: YoutubeTranscript) {
  return {
    kind: "transcript" as const,
    video_id: transcript.videoId,
    url: `https://www.youtube.com/watch?v=${transcript.videoId}`,
    platform: "youtube" as const,
    title: transcript.title,
    channel: transcript.channel,
    duration: transcript.durationSeconds,
    language: transcript.language,
    source: transcript.source,
    caption_kind: transcript.captionKind,
    thumbnail_url: transcript.thumbnailUrl,
    speakers: null,
    speech_engine: null,
  };
}
