import type { RequestBody } from "@verbatim/contract";
import type { Response } from "express";
import { hostRefusal } from "../../adapters/net/address-rule.ts";
import { parseVideoReference } from "../../adapters/youtube/video-reference.ts";
import type { AppDeps, AudioDeps } from "../../deps.ts";
import { ApiError } from "../../errors.ts";
import {
  type AudioOutcome,
  type AudioRequest,
  type AudioTranscripts,
  createAudioTranscripts,
} from "../../services/audio-transcripts.ts";
import { type ChargeRequest, usageBlock } from "../../services/credits.ts";
import { pricing } from "../../services/pricing.ts";
import {
  type ChargedTranscript,
  isCaptionless,
  type TranscriptMode,
  toApiError,
  VideoTranscripts,
  type YoutubeTranscript,
  youtubeWatchUrl,
} from "../../services/video-transcripts.ts";
import { authOf } from "../auth.ts";
import { publicBaseUrl, requestIdOf } from "../locals.ts";
import { bodyOf, type LiveRoute, send, wasSent } from "../route.ts";
import { holdExtractionSlot } from "../slots.ts";

type TranscriptRequest = RequestBody<"fetchVideoTranscript">;

/**
 * `POST /transcripts/video`: YouTube captions (1 credit, from our store when fetched before), and
 * podcasts, feeds and media files: the publisher's transcript (1 credit). Speech recognition,
 * of a YouTube video's audio (`mode: "audio"`, or `auto` without captions) as of any other media,
 * answers inline for short media, otherwise as a job (202) charged on completion.
 */
export function fetchVideoTranscript(deps: AppDeps): LiveRoute {
  const youtube = deps.youtube
    ? new VideoTranscripts(deps.platform.store, deps.youtube.captions, deps.platform.credits, deps.now)
    : undefined;
  const audio = deps.audio
    ? createAudioTranscripts(deps.platform, deps.audio, { now: deps.now, logger: deps.logger })
    : undefined;
  return {
    operationId: "fetchVideoTranscript",
    guards: [holdExtractionSlot(deps)],
    handler: async (req, res) => {
      const body = bodyOf<TranscriptRequest>(req);
      const mode = modeOf(body, wasSent(res, "mode"));
      const auth = authOf(res);
      const withTimestamps = body.timestamps === undefined || body.timestamps === true || body.timestamps === "segment";
      const reference = parseVideoReference(body.video);
      if (reference.kind === "youtube-without-video") {
        throw new ApiError("invalid_input", `"${body.video}" is a YouTube address but names no video.`);
      }
      if (reference.kind === "malformed") {
        throw new ApiError("invalid_input", `"${body.video}" is neither a YouTube video id nor a URL.`);
      }
      if (body.callback_url !== undefined && deps.audio) {
        await requireDeliverableCallback(body.callback_url, deps.audio);
      }
      // Input errors come first: a 402 is for a request that would otherwise run.
      deps.platform.credits.requireAtLeast(auth.credits, pricing.minimum());
      const audioRequest = () => ({
        ...(body.episode === undefined ? {} : { episode: body.episode }),
        mode,
        accountId: auth.accountId,
        plan: auth.plan,
        balance: auth.credits,
        requestId: requestIdOf(res),
        callbackUrl: body.callback_url ?? null,
        body: { ...body },
        docsBaseUrl: publicBaseUrl(req, deps.config.publicUrl),
      });
      switch (reference.kind) {
        case "other-url": {
          if (!audio || !deps.audio) {
            throw new ApiError(
              "unsupported_platform",
              `${reference.url.hostname} is not YouTube, and this server transcribes no other sources.`,
            );
          }
          const outcome = await audio.request({ ...audioRequest(), video: body.video });
          sendAudioOutcome(res, outcome, withTimestamps, auth.credits);
          return;
        }
        case "youtube":
          break;
      }
      if (!youtube) throw new ApiError("unsupported_platform", "YouTube is not configured on this server.");
      const captionsCharge = {
        accountId: auth.accountId,
        credits: pricing.captions(),
        operation: "POST /transcripts/video",
        requestId: requestIdOf(res),
      };
      const outcome = await youtubeOutcome(
        youtube,
        audio?.transcribesYoutube ? audio : undefined,
        { ...audioRequest(), video: body.video },
        reference.videoId,
        body.language,
        captionsCharge,
      );
      if (outcome.kind !== "captions") {
        sendAudioOutcome(res, outcome, withTimestamps, auth.credits);
        return;
      }
      const { transcript, balance } = outcome;
      // `usage.bytes` counts the words returned either way: the joined text.
      const text = transcript.segments.map((segment) => segment.text).join(" ");
      send(res, "fetchVideoTranscript", 200, {
        ok: true,
        request_id: requestIdOf(res),
        data: {
          ...transcriptFields(transcript),
          ...(withTimestamps ? { segments: transcript.segments } : { text }),
        },
        usage: usageBlock(captionsCharge.credits, balance, Buffer.byteLength(text)),
      });
    },
  };
}

/**
 * A YouTube video's captions, or speech recognition of its audio when asked for (`mode:
 * "audio"`) or when `auto` finds no captions. Without speech recognition, those cases are
 * refused with the reason.
 */
async function youtubeOutcome(
  youtube: VideoTranscripts,
  speech: AudioTranscripts | undefined,
  request: AudioRequest,
  videoId: string,
  language: string | undefined,
  captionsCharge: ChargeRequest,
): Promise<({ kind: "captions" } & ChargedTranscript) | AudioOutcome> {
  if (request.mode !== "audio") {
    try {
      return { kind: "captions", ...(await youtube.captionsOf(videoId, language, captionsCharge)) };
    } catch (error) {
      const failure = toApiError(error);
      if (request.mode === "captions" || !speech || !isCaptionless(failure)) throw failure;
    }
  } else if (!speech) {
    throw new ApiError(
      "unsupported_platform",
      `This server does not transcribe the audio of YouTube videos; ask for the captions of ${videoId} with mode "captions" or "auto".`,
    );
  }
  return speech.requestYoutube(request, videoId);
}

/** A transcript with `segments` or `text` as `timestamps` asked, or the 202 of a job (nothing charged yet). */
function sendAudioOutcome(res: Response, outcome: AudioOutcome, withTimestamps: boolean, balance: number | null) {
  if (outcome.kind === "job") {
    send(res, "fetchVideoTranscript", 202, {
      ok: true,
      request_id: requestIdOf(res),
      status: "processing",
      job_id: outcome.jobId,
      poll_url: `/api/v2/transcripts/jobs/${outcome.jobId}`,
      data: { kind: "transcript_job", video_id: outcome.videoId, platform: outcome.platform },
      usage: usageBlock(0, balance),
    });
    return;
  }
  const { text, segments, ...fields } = outcome.transcript;
  send(res, "fetchVideoTranscript", 200, {
    ok: true,
    request_id: requestIdOf(res),
    data: { ...fields, ...(withTimestamps ? { segments } : { text }) },
    usage: usageBlock(outcome.creditsSpent, outcome.balance, Buffer.byteLength(text)),
  });
}

/**
 * Refuses a `callback_url` the webhook deliverer would never reach: not https, or naming a
 * private, loopback or link-local host by address, as `localhost`, or by a name resolving to
 * one. Names are checked again at delivery time, so a name that later points inward is refused
 * there.
 */
async function requireDeliverableCallback(callbackUrl: string, audio: AudioDeps): Promise<void> {
  const allowPrivateTargets = audio.allowPrivateCallbackTargets ?? false;
  // The schema's `uri` format admits addresses the WHATWG parser, which delivery uses, rejects.
  const url = URL.parse(callbackUrl);
  if (!url) throw callbackRefused("must be a URL a WHATWG parser accepts (host and port included)");
  // Credentials in the address would be sent to the receiver and written to the delivery log.
  if (url.username || url.password) throw callbackRefused("must not carry a user name or password");
  const refusedHost = allowPrivateTargets
    ? null
    : await hostRefusal(url.hostname, audio.resolveAll ? { resolveAll: audio.resolveAll } : {});
  const problem =
    url.protocol !== "https:" && !(allowPrivateTargets && url.protocol === "http:")
      ? "must be an https URL"
      : refusedHost && `must not name ${refusedHost}`;
  if (problem) throw callbackRefused(problem);
}

function callbackRefused(problem: string): ApiError {
  return new ApiError("invalid_request", `callback_url ${problem}.`, {
    extra: { issues: [{ path: "/body/callback_url", message: problem }] },
  });
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
    url: youtubeWatchUrl(transcript.videoId),
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
