import type { EgressGuard } from "../egress/egress-guard.ts";
import { SourceError } from "../source-error.ts";
import { YtdlpStartError } from "./ytdlp-sidecar.ts";

/** The egress guard, as yt-dlp's callers use it: one call of its own per yt-dlp call. */
export type EgressCalls = Pick<EgressGuard, "openCall">;

/** What a guarded call reads, for its messages. */
export interface GuardedSubject {
  /** The address the call reads. */
  url: string;
  /** The platform's name as people write it (`TikTok`). */
  label: string;
}

/**
 * Runs one yt-dlp call through a guard call of its own, within `limits`; what the guard did to
 * the call (a refused address, the byte cap, the deadline, a host it could not reach) is the
 * failure's true cause, whatever yt-dlp made of it.
 */
export async function guardedCall<T>(
  egress: EgressCalls,
  subject: GuardedSubject,
  limits: { maxBytes: number; deadlineMs: number },
  absentAdvice: string,
  work: (proxy: string) => Promise<T>,
): Promise<T> {
  const call = egress.openCall(limits);
  try {
    const result = await work(call.proxyUrl);
    // The guard ended a connection at the byte cap: what yt-dlp took for an end was not the body's.
    if (!call.tooLarge) return result;
  } catch (error) {
    // What the guard did to the call is the true cause of what yt-dlp saw (a reset, a refusal).
    const [refused] = call.refusedTargets;
    if (refused) {
      throw new SourceError(
        "invalid_input",
        `${subject.url} leads to ${refused.host} (${refused.reason}), which this server does not connect to.`,
        { cause: error },
      );
    }
    if (call.tooLarge) throw tooLargeError(subject, limits, error);
    // The traceback names the server's paths: it goes to the log (the sidecar's), not to the client.
    if (error instanceof YtdlpStartError) {
      throw new SourceError(
        "unsupported",
        `${subject.label} links need yt-dlp, which does not start on this server. ${absentAdvice}`,
        { cause: error },
      );
    }
    if (call.timedOut) {
      throw new SourceError("timeout", `${subject.url} took longer than ${limits.deadlineMs / 1000} s.`, {
        cause: error,
      });
    }
    // yt-dlp words it as its proxy's 502 ("Tunnel connection failed"); the guard knows which host failed.
    const [unreachable] = call.unreachableTargets;
    if (unreachable && error instanceof SourceError && error.kind === "connection") {
      throw new SourceError(
        "connection",
        `The connection to ${subject.label} failed: ${unreachable.host} could not be reached.`,
        { cause: error },
      );
    }
    throw error;
  } finally {
    call.close();
  }
  throw tooLargeError(subject, limits);
}

/** The guard stopped a call at its byte cap: its media, captions or details are larger than this server reads. */
function tooLargeError(subject: GuardedSubject, limits: { maxBytes: number }, cause?: unknown): SourceError {
  return new SourceError("too_large", `${subject.url} led to more than the ${limits.maxBytes} bytes allowed.`, {
    cause,
  });
}
