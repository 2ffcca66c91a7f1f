import type { ErrorCode, V1Schema } from "@verbatim/contract";
import { errorTable } from "@verbatim/contract";
import type { ApiError } from "../../errors.ts";

/** A v1 error code: v1's closed set. */
export type V1ErrorCode = V1Schema<"ErrorCode">;

/** The v2 codes v1 never had, and the v1 code each answers as (spec/v1/models/errors.tsp, `ErrorCode`). */
const nearestV1Code = {
  invalid_cursor: "invalid_request",
  batch_too_large: "invalid_request",
  not_found: "invalid_request",
  endpoint_platform_mismatch: "unsupported_platform",
  podcast_feed_not_found: "unavailable",
  audio_ineligible: "invalid_input",
  overloaded: "upstream_unavailable",
  // v1 takes no `translate_to` and never meets this code; the map stays total all the same.
  translation_unavailable: "no_captions",
} as const satisfies Partial<Record<ErrorCode, V1ErrorCode>>;

/** The v1 code of an error: its own code where v1 has it, else the nearest one. */
export function v1CodeOf(code: ErrorCode): V1ErrorCode {
  return code in nearestV1Code ? nearestV1Code[code as keyof typeof nearestV1Code] : (code as V1ErrorCode);
}

/** The family of an error: the thousands digit of its number (1 request, 2 account, 3 input, 4 content, 5 transient, 9 ours). */
function familyOf(code: ErrorCode): number {
  return Math.floor(errorTable[code].number / 1000);
}

/**
 * `reason`, the precise v2 code, is given where v1's code says less: on input, content and
 * transient failures, and wherever the v2 code folded into another v1 code.
 */
export function reasonOf(code: ErrorCode): string | undefined {
  const family = familyOf(code);
  return family === 3 || family === 4 || family === 5 || v1CodeOf(code) !== code ? code : undefined;
}

type AiFallback = V1Schema<"AiFallback">;
type UnavailableReason = NonNullable<AiFallback["unavailable_reason"]>;

const contentInaccessible: ReadonlySet<ErrorCode> = new Set([
  "private",
  "unavailable",
  "members_only",
  "age_restricted",
  "region_blocked",
  "podcast_feed_not_found",
]);

const nothingToTranscribe: ReadonlySet<ErrorCode> = new Set(["no_speech", "no_audio_stream"]);

const unavailableMessages: Record<UnavailableReason, string> = {
  unsupported_input: "Speech recognition cannot run on this input.",
  no_speech_to_transcribe: "The media holds no speech to transcribe.",
  content_inaccessible: "The content could not be reached, so its audio cannot be transcribed either.",
  retry_captions_first: "The captions could not be checked; retry the same request first.",
  insufficient_credits: "The balance cannot pay for a transcription.",
};

function unavailableReasonOf(code: ErrorCode): UnavailableReason {
  if (code === "insufficient_credits") return "insufficient_credits";
  if (nothingToTranscribe.has(code)) return "no_speech_to_transcribe";
  if (contentInaccessible.has(code)) return "content_inaccessible";
  if (familyOf(code) === 5) return "retry_captions_first";
  return "unsupported_input";
}

/**
 * The `ai_fallback` block of a transcript failure: whether the same request with
 * `ai_fallback: true` would transcribe the audio. That is the v2 error's own `retry_with`
 * (`{mode: "audio"}`), so the rule stays where the failure is made.
 */
export function aiFallbackOf(error: ApiError, balance: number | null | undefined): AiFallback | undefined {
  const family = familyOf(error.code);
  if (error.code !== "insufficient_credits" && family !== 3 && family !== 4 && family !== 5) return undefined;
  const retryWith = error.extra !== undefined && "retry_with" in error.extra ? error.extra.retry_with : undefined;
  const available = retryWith?.mode === "audio";
  const captionsUnavailable = error.code === "no_captions" || error.code === "captions_disabled";
  const withBalance = balance === undefined ? {} : { balance };
  if (available) {
    return {
      available: true,
      captions_unavailable: captionsUnavailable,
      message: "Send the same request with ai_fallback: true to transcribe the audio instead.",
      retry_with: { ai_fallback: true },
      ...withBalance,
    };
  }
  const reason = unavailableReasonOf(error.code);
  return {
    available: false,
    captions_unavailable: captionsUnavailable,
    unavailable_reason: reason,
    message: unavailableMessages[reason],
    ...withBalance,
  };
}
