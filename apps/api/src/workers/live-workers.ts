import { newId } from "../ids.ts";
import type { Logger } from "../logger.ts";
import type { ClaimedSession, LiveRunner, LiveStore } from "../services/live/index.ts";

export interface LiveWorkersOptions {
  /** Sessions this process runs at once (`VERBATIM_LIVE_SESSIONS`). */
  capacity: number;
  /** Seconds a lease lives without renewal (`VERBATIM_LIVE_LEASE_SECONDS`); it is renewed three times as often. */
  leaseSeconds: number;
  /** How often the process looks for sessions to claim, in milliseconds. */
  pollMs: number;
  /** The worker's id, held in the leases it takes; default a new `wrk_` id. */
  owner?: string;
  logger: Logger;
}

interface RunningSession {
  /** The lease's holder as the row records it. */
  holder: string;
  /** Aborted when the lease is lost or the process stops: the run stops writing at once. */
  lease: AbortController;
  stop: AbortController;
  renewal: NodeJS.Timeout;
  done: Promise<void>;
}

/**
 * The live sessions run in this process: up to `capacity` at once, each claimed with a lease in
 * the database and renewed while it runs, so that one worker at a time holds a session, and a
 * session whose worker died is taken over by another once its lease lapses (docs/decisions.md,
 * rule 16). A lease that could not be renewed, or that another worker took, stops its run.
 */
export class LiveWorkers {
  readonly owner: string;
  private readonly running = new Map<string, RunningSession>();
  private timer: NodeJS.Timeout | undefined;
  private claiming: Promise<void> | undefined;
  private active = false;

  constructor(
    private readonly runner: LiveRunner,
    private readonly sessions: LiveStore,
    private readonly options: LiveWorkersOptions,
  ) {
    this.owner = options.owner ?? newId("wrk");
  }

  start(): void {
    if (this.active) return;
    this.active = true;
    this.schedule(0);
  }

  /** How many sessions run here now. */
  get size(): number {
    return this.running.size;
  }

  /** Stops claiming, and hands every session back to be taken over at once by another worker. */
  async stop(): Promise<void> {
    this.active = false;
    clearTimeout(this.timer);
    await this.claiming;
    const running = [...this.running.entries()];
    for (const [, session] of running) session.lease.abort(new Error("the worker is stopping"));
    await Promise.all(running.map(([, session]) => session.done));
    await Promise.all(running.map(([id, session]) => this.sessions.release(id, session.holder).catch(() => undefined)));
  }

  /**
   * Stops as a killed process would: no more claims, renewals or writes, nothing handed back; its
   * sessions wait for their leases to lapse. For tests of a worker's death.
   */
  async crash(): Promise<void> {
    this.active = false;
    clearTimeout(this.timer);
    await this.claiming;
    for (const session of this.running.values()) {
      clearInterval(session.renewal);
      session.lease.abort(new Error("the worker died"));
    }
    await Promise.all([...this.running.values()].map((session) => session.done));
  }

  private schedule(delayMs: number): void {
    this.timer = setTimeout(() => {
      this.claiming = this.claim().finally(() => {
        this.claiming = undefined;
        if (this.active) this.schedule(this.options.pollMs);
      });
    }, delayMs);
    this.timer.unref();
  }

  private async claim(): Promise<void> {
    const free = this.options.capacity - this.running.size;
    if (free <= 0) return;
    let claimed: ClaimedSession[];
    try {
      claimed = await this.sessions.claim(this.owner, free, this.options.leaseSeconds, [...this.running.keys()]);
    } catch (err) {
      this.options.logger.warn({ err }, "could not look for live sessions to run");
      return;
    }
    for (const session of claimed) this.begin(session);
  }

  private begin(claimed: ClaimedSession): void {
    const id = claimed.row.id;
    const holder = claimed.lease;
    const lease = new AbortController();
    const stop = new AbortController();
    const renewal = setInterval(
      () => {
        this.sessions.renew(id, holder, this.options.leaseSeconds).then(
          ({ held, stopRequested }) => {
            if (!held) lease.abort(new Error("the lease went to another worker"));
            else if (stopRequested) stop.abort();
          },
          (err: unknown) =>
            this.options.logger.warn({ err, live_session: id }, "a live session's lease was not renewed"),
        );
      },
      (this.options.leaseSeconds * 1000) / 3,
    );
    renewal.unref();
    const done = this.runner
      .run(claimed, { owner: holder, signal: lease.signal, stopRequested: stop.signal })
      .finally(() => {
        clearInterval(renewal);
        this.running.delete(id);
        // A session that ended leaves room: look for another at once (a claim under way schedules its own).
        if (this.active && !this.claiming) {
          clearTimeout(this.timer);
          this.schedule(0);
        }
      });
    this.running.set(id, { holder, lease, stop, renewal, done });
  }
}
