import type { MonitorRow } from "./monitor-events.ts";

/** Due monitors (or owed transcripts) one claim takes. */
export const claimBatchSize = 20;

/** The most a check's time moves for jitter, so monitors created together do not all check at once. */
const maxJitterMs = 5 * 60_000;

/** When monitors are next checked: their interval plus jitter, none while paused. */
export class CheckSchedule {
  /** `random`: 0 (inclusive) to 1, where in its jitter window a check lands. */
  constructor(private readonly random: () => number) {}

  nextCheckAfter(now: Date, intervalMinutes: number): Date {
    const intervalMs = intervalMinutes * 60_000;
    const jitterMs = Math.floor(this.random() * Math.min(intervalMs / 10, maxJitterMs));
    return new Date(now.getTime() + intervalMs + jitterMs);
  }

  /** What every finished check sets: when it ran, the next scheduled check (none while paused), no claim. */
  afterCheck(monitor: MonitorRow, now: Date): Partial<MonitorRow> {
    return {
      lastCheckedAt: now,
      nextCheckAt: monitor.status === "active" ? this.nextCheckAfter(now, monitor.intervalMinutes) : null,
      claimedUntil: null,
    };
  }
}
