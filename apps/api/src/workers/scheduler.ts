import type { Logger } from "../logger.ts";
import type { MonthlyRefills } from "../services/accounts/index.ts";
import type { Monitors } from "../services/monitors/index.ts";
import { claimBatchSize } from "../services/monitors/index.ts";

export interface SchedulerOptions {
  /** Due monitor checks; absent where monitors are not configured. */
  monitors?: Monitors;
  refills: MonthlyRefills;
  logger: Logger;
  /** How often due work is looked for. Default 5 s. */
  tickMs?: number;
}

/**
 * The worker role's scheduled work: due monitor checks, transcripts a dead worker left unfetched,
 * and monthly credit refills. One loop serves every monitor and account; each step claims its
 * rows in the database, so any number of workers can run it and each piece of work runs once.
 */
export class Scheduler {
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private running = false;

  constructor(private readonly options: SchedulerOptions) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.schedule(0);
  }

  /** Stops looking for work and waits for the tick in progress. */
  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    await this.ticking;
  }

  /** Runs every step once: what a tick does, for tests that drive the clock. */
  async tick(): Promise<void> {
    const { monitors, refills, logger } = this.options;
    await this.step("monthly refills", () => refills.runDue(), logger);
    if (!monitors) return;
    // A full claim means more may be due: keep going before sleeping.
    while ((await this.step("monitor checks", () => monitors.runDueChecks(), logger)) === claimBatchSize) {
      if (!this.running) break;
    }
    await this.step("monitor transcripts", () => monitors.runPendingTranscripts(), logger);
  }

  private async step(name: string, work: () => Promise<number>, logger: Logger): Promise<number> {
    try {
      const done = await work();
      if (done > 0) logger.debug({ step: name, done }, "scheduled work done");
      return done;
    } catch (err) {
      logger.error({ err, step: name }, "scheduled work failed; it is retried on the next tick");
      return 0;
    }
  }

  private schedule(delayMs: number): void {
    this.timer = setTimeout(() => {
      this.ticking = this.tick().finally(() => {
        this.ticking = undefined;
        if (this.running) this.schedule(this.options.tickMs ?? 5_000);
      });
    }, delayMs);
    this.timer.unref();
  }
}
