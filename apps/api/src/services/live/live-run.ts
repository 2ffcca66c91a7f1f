import { ApiError } from "../../errors.ts";
import type { LiveResolution, LiveStreamRef } from "../../sources/live/index.ts";
import { isAnswerable, toApiError } from "../failures/index.ts";
import type { LiveLease, LiveRunnerOptions } from "./live-run-settings.ts";
import { type ClaimedSession, LeaseLost, type LiveSessionRow } from "./live-store.ts";
import { failureOf } from "./live-views.ts";
import { SessionStream } from "./session-stream.ts";

/** How long a worker waits before resolving again a stream that failed for a while (a platform's hiccup). */
const retryResolveMs = 15_000;

/** The longest a waiting session sleeps before its broadcast is looked at again. */
const maxWaitingMs = 5 * 60_000;

/** How soon a waiting broadcast is looked at again at the earliest, when the platform says no start or a past one. */
const defaultWaitingRecheckMs = 30_000;

/**
 * One session on the worker holding its lease: its stream resolved, read from the live edge (or
 * after the segment it was last at, when taken over), piped to ffmpeg, recognised as it plays;
 * each final segment committed before it is announced, each minute charged as it starts, and the
 * session ended when the stream ends, `max_minutes` pass, the balance runs out or a stop is asked.
 */
export class LiveRunner {
  constructor(private readonly options: LiveRunnerOptions) {}

  /** Runs the claimed session until it ends, waits, or the lease is lost; never throws. */
  async run(claimed: ClaimedSession, lease: LiveLease): Promise<void> {
    const { row } = claimed;
    const log = this.options.logger.child({ live_session: row.id });
    try {
      if (row.stopRequestedAt) {
        await this.options.endings.end(row.id, lease.owner, { kind: "ended", reason: "stopped" });
        return;
      }
      const resolution = await this.resolve(row, lease);
      if (resolution === null) return;
      if (resolution.state === "waiting") {
        const now = this.options.now().getTime();
        const soonest = now + (this.options.settings.waitingRecheckMs ?? defaultWaitingRecheckMs);
        const next = Math.min(Math.max(resolution.startsAt?.getTime() ?? 0, soonest), now + maxWaitingMs);
        await this.options.sessions.release(row.id, lease.owner, new Date(next));
        return;
      }
      if (resolution.state === "over") {
        await this.options.endings.end(row.id, lease.owner, { kind: "ended", reason: "stream_ended" });
        return;
      }
      await new SessionStream(this.options, row, claimed.resumed, resolution, lease, log).run();
    } catch (error) {
      if (error instanceof LeaseLost || lease.signal.aborted) {
        log.info({ reason: String(lease.signal.reason ?? error) }, "live session left to another worker");
        return;
      }
      log.error({ err: error }, "live session failed");
      const failure = isAnswerable(error)
        ? failureOf(toApiError(error))
        : failureOf(
            new ApiError("internal_error", "The live session failed unexpectedly; what it transcribed is kept."),
          );
      await this.options.endings
        .end(row.id, lease.owner, { kind: "failed", failure })
        .catch((err: unknown) => log.error({ err }, "a failed live session could not be recorded as failed"));
    }
  }

  /**
   * What the stream is now; null when the session was dealt with: failed (a permanent error), or
   * left for a later attempt (a transient one, while the stream has not been silent for long).
   */
  private async resolve(row: LiveSessionRow, lease: LiveLease): Promise<LiveResolution | null> {
    try {
      return await this.options.sources.resolve(row.stream as unknown as LiveStreamRef, {
        signal: lease.signal,
        accountId: row.accountId,
      });
    } catch (error) {
      const mapped = toApiError(error);
      const lastHeard = (row.position as { at?: string } | null)?.at ?? (row.startedAt ?? row.createdAt).toISOString();
      const silentMs = this.options.now().getTime() - Date.parse(lastHeard);
      if (mapped.number < 5000 || silentMs > this.options.settings.silenceMs) throw mapped;
      await this.options.sessions.release(row.id, lease.owner, new Date(this.options.now().getTime() + retryResolveMs));
      return null;
    }
  }
}
