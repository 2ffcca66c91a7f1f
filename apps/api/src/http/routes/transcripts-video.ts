import type { RequestBody } from "@verbatim/contract";
import type { Response } from "express";
import { ApiError } from "../../errors.ts";
import type { HeldSlot } from "../../services/accounts/index.ts";
import { type ChargeSettlement, usageBlock } from "../../services/accounts/index.ts";
import type { FullTranscript, SerialisedSegments, TranscriptMode } from "../../services/kept/index.ts";
import type { TranscriptJson } from "../../services/renderings/index.ts";
import {
  type RenderingRequest,
  rendersInline,
  renderTranscript,
  requireWordTimes,
  segmentsAsJson,
  serialisedSize,
} from "../../services/renderings/index.ts";
import type { TranscriptOutcome, Transcripts } from "../../services/transcripts/index.ts";
import { type WebhookTargetRule, webhookTargetProblem } from "../../services/webhooks/index.ts";
import type { AppDeps } from "../app-deps.ts";
import { settlementOf } from "../idempotency.ts";
import { authOf, publicBaseUrl, requestIdOf, slotOf } from "../locals.ts";
import { bodyOf, isJsonWrapped, type LiveRoute, sendOk, sendOkRendered, wasSent } from "../route.ts";

type TranscriptRequest = RequestBody<"fetchVideoTranscript">;

/**
 * `POST /transcripts/video`: YouTube captions (1 credit, from our store when fetched before), and
 * podcasts, feeds and media files: the publisher's transcript (1 credit). Speech recognition,
 * of a YouTube video's audio (`mode: "audio"`, or `auto` without captions) as of any other media,
 * answers inline for short media, otherwise as a job (202) charged on completion. The route reads
 * the body and shapes the envelope; `Transcripts` decides.
 */
export function fetchVideoTranscript(
  deps: AppDeps,
  transcripts: Transcripts,
  callbackTargets: WebhookTargetRule | undefined,
): LiveRoute {
  return {
    operationId: "fetchVideoTranscript",
    holdsExtractionSlot: true,
    handler: async (req, res) => {
      const body = bodyOf<TranscriptRequest>(req);
      const mode = modeOf(body, wasSent(res, "mode"));
      const auth = authOf(res);
      const rendering = renderingOf(body, wasSent(res, "timestamps"));
      if (body.callback_url !== undefined && callbackTargets) {
        await requireDeliverableCallback(body.callback_url, callbackTargets);
      }
      const outcome = await transcripts.fetch({
        video: body.video,
        ...(body.episode === undefined ? {} : { episode: body.episode }),
        ...(body.language === undefined ? {} : { language: body.language }),
        ...(body.translate_to === undefined ? {} : { translateTo: body.translate_to }),
        mode,
        accountId: auth.accountId,
        plan: auth.plan,
        balance: auth.credits,
        requestId: requestIdOf(res),
        operation: "POST /transcripts/video",
        callbackUrl: body.callback_url ?? null,
        body: { ...body },
        docsBaseUrl: publicBaseUrl(req, deps.config.publicUrl),
        ...withSlot(res),
        ...withSettlement(res),
        ...(rendering.words ? { words: true } : {}),
      });
      await sendOutcome(deps, res, outcome, rendering, auth.credits, body.chunk_by === "chapter");
    },
  };
}

/** The request's slot, for the statement that serves a stored transcript to give back. */
function withSlot(res: Response): { slot?: HeldSlot } {
  const slot = slotOf(res);
  return slot ? { slot } : {};
}

/** With an Idempotency-Key, the transaction the charge commits in with the answer. */
function withSettlement(res: Response): { settlement?: ChargeSettlement } {
  const settlement = settlementOf(res);
  return settlement ? { settlement } : {};
}

/**
 * A transcript written out as `format` (or `timestamps`) asked, its chunks cut at its chapters
 * with `chunk_by: "chapter"`, or the 202 of a job (nothing charged yet). A job's result, polled or
 * delivered, is a `FullTranscript` whatever the request asked: the poll carries no options, so it
 * has both `text` and `segments`.
 */
async function sendOutcome(
  deps: AppDeps,
  res: Response,
  outcome: TranscriptOutcome,
  asked: RenderingRequest,
  balance: number | null,
  byChapter: boolean,
): Promise<void> {
  if (outcome.kind === "job") {
    sendOk(res, "fetchVideoTranscript", 202, {
      status: "processing",
      job_id: outcome.jobId,
      poll_url: `/api/v2/transcripts/jobs/${outcome.jobId}`,
      data: { kind: "transcript_job", video_id: outcome.videoId, platform: outcome.platform },
      usage: usageBlock(0, balance),
    });
    return;
  }
  const rendering = byChapter ? { ...asked, chapters: outcome.transcript.chapters ?? [] } : asked;
  if (outcome.serialised && isPlainSegments(rendering) && !rendering.words && !isJsonWrapped(res)) {
    sendSpliced(res, outcome, outcome.serialised);
    return;
  }
  const { serialised, transcript } = outcome;
  const fields = fieldsBesideWords(transcript);
  // `usage.bytes` counts the words returned either way: the joined text.
  const textBytes = serialised?.textBytes ?? Buffer.byteLength(transcript.text);
  const usage = usageBlock(outcome.creditsSpent, outcome.balance, textBytes);
  const size = serialised
    ? serialisedSize(serialised.json, textBytes)
    : { segments: transcript.segments.length, textBytes };
  if (rendersInline(size) || isJsonWrapped(res)) {
    const renderings = renderTranscript(transcript.segments, rendering);
    sendOk(res, "fetchVideoTranscript", 200, { data: { ...fields, ...renderings }, usage });
    return;
  }
  // Served from the store, the words go to the rendering thread as the store keeps them, unparsed,
  // unless their times were asked for: the store keeps those beside the segments.
  const words: TranscriptJson =
    serialised && !rendering.words
      ? { kind: "segments", pages: [serialised.json] }
      : await segmentsAsJson(transcript.segments);
  const renderings = await deps.services.renderer.render({ words, request: rendering });
  sendOkRendered(res, "fetchVideoTranscript", 200, { data: fields, usage }, renderings);
}

/**
 * The transcript's fields besides its words (`text` and `segments`), in its order. A transcript
 * served from the store parses its words when they are read, so they are not.
 */
function fieldsBesideWords(transcript: FullTranscript): Omit<FullTranscript, "text" | "segments"> {
  return Object.fromEntries(
    Object.keys(transcript)
      .filter((name) => name !== "text" && name !== "segments")
      .map((name) => [name, transcript[name as keyof FullTranscript]]),
  ) as Omit<FullTranscript, "text" | "segments">;
}

/** The rendering that is the segments alone, as the store keeps them. */
function isPlainSegments(rendering: RenderingRequest): boolean {
  return rendering.format === "segments" && rendering.chunkSize === undefined && rendering.chapters === undefined;
}

/**
 * The 200 of a stored transcript with its segments spliced into the envelope as the store keeps
 * them (JSON text): the words are neither parsed nor serialised again on the way through. The
 * fields and their order are those of `send`'s body.
 */
function sendSpliced(
  res: Response,
  outcome: TranscriptOutcome & { kind: "transcript" },
  serialised: SerialisedSegments,
): void {
  const head = JSON.stringify({ ok: true, request_id: requestIdOf(res), data: fieldsBesideWords(outcome.transcript) });
  const usage = JSON.stringify(usageBlock(outcome.creditsSpent, outcome.balance, serialised.textBytes));
  // `head` ends with the braces closing `data` and the envelope; the segments close `data` again.
  res
    .status(200)
    .type("json")
    .send(`${head.slice(0, -2)},"segments":${serialised.json}},"usage":${usage}}`);
}

/** Refuses a `callback_url` the webhook deliverer would never reach (`webhookTargetProblem`). */
async function requireDeliverableCallback(callbackUrl: string, targets: WebhookTargetRule): Promise<void> {
  const problem = await webhookTargetProblem(callbackUrl, targets);
  if (problem) throw callbackRefused(problem);
}

function callbackRefused(problem: string): ApiError {
  return new ApiError("invalid_request", `callback_url ${problem}.`, {
    extra: { issues: [{ path: "/body/callback_url", message: problem }] },
  });
}

/**
 * How to write the transcript out (`formatOf`), with word times when `words` asks them, which
 * `text` and `srt` have no place for: refused before anything is fetched or charged.
 */
function renderingOf(body: TranscriptRequest, timestampsSent: boolean): RenderingRequest {
  const rendering = formatOf(body, timestampsSent);
  if (body.words !== true) return rendering;
  requireWordTimes(rendering.format, "/body/words");
  return { ...rendering, words: true };
}

/**
 * How to write the transcript out: `format`, else what `timestamps` says. Both sent and at odds
 * (`timestamps: false` with segments or subtitles, `timestamps: true` with text) is refused
 * before anything is fetched or charged.
 */
function formatOf(body: TranscriptRequest, timestampsSent: boolean): RenderingRequest {
  const withTimestamps = body.timestamps === undefined || body.timestamps === true || body.timestamps === "segment";
  const chunks = body.chunk_size === undefined ? {} : { chunkSize: body.chunk_size };
  if (body.format === undefined) return { format: withTimestamps ? "segments" : "text", ...chunks };
  if (timestampsSent && withTimestamps !== (body.format !== "text")) {
    throw new ApiError(
      "invalid_request",
      `timestamps: ${JSON.stringify(body.timestamps)} contradicts format: "${body.format}".`,
      {
        extra: {
          issues: [
            {
              path: "/body/format",
              message: `format "${body.format}" ${withTimestamps ? "has no timestamps" : "is timed"}; drop timestamps, which format replaces.`,
            },
          ],
        },
      },
    );
  }
  return { format: body.format, ...chunks };
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
