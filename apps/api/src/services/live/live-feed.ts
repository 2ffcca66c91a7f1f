import { sql } from "drizzle-orm";
import type { Logger } from "../../logger.ts";
import type { DatabaseOrTransaction, Store } from "../../store/database.ts";

/** The channel on which a session's id is announced whenever it changed: a new event or a new partial. */
const channel = "verbatim_live";

/**
 * Wake-ups of the processes serving a session's events: whoever writes an event or a partial
 * announces the session's id in the same transaction (`pg_notify`, delivered when it commits, to
 * every process of the database), and each serving process waits for its sessions' ids, with a
 * timer in case an announcement was lost while its listening connection was down.
 */
export class LiveFeed {
  private readonly waiters = new Map<string, Set<() => void>>();
  private listening: Promise<unknown> | undefined;
  private stopListening: (() => Promise<void>) | undefined;

  constructor(
    private readonly store: Store,
    private readonly logger: Logger,
  ) {}

  /** Announces a change of the session in `db`: listeners hear of it when `db`'s transaction commits. */
  async announce(sessionId: string, db: DatabaseOrTransaction): Promise<void> {
    await db.execute(sql`select pg_notify(${channel}, ${sessionId})`);
  }

  /** Resolves when the session is announced, after `ms`, or when `signal` aborts, whichever comes first. */
  async wait(sessionId: string, ms: number, signal?: AbortSignal): Promise<void> {
    await this.listen();
    if (signal?.aborted) return;
    await new Promise<void>((resolve) => {
      let waiters = this.waiters.get(sessionId);
      if (!waiters) {
        waiters = new Set();
        this.waiters.set(sessionId, waiters);
      }
      const wake = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", wake);
        waiters.delete(wake);
        if (waiters.size === 0) this.waiters.delete(sessionId);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      signal?.addEventListener("abort", wake, { once: true });
      waiters.add(wake);
    });
  }

  /** Stops listening; waits in progress end at their timers. */
  async close(): Promise<void> {
    await this.listening;
    await this.stopListening?.();
    this.stopListening = undefined;
    this.listening = undefined;
  }

  private listen(): Promise<unknown> {
    this.listening ??= this.store
      .listen(channel, (sessionId) => {
        for (const wake of [...(this.waiters.get(sessionId) ?? [])]) wake();
      })
      .then((stop) => {
        this.stopListening = stop;
      })
      .catch((err: unknown) => {
        // Without notifications the timers still wake every wait: events come, only later.
        this.logger.warn({ err }, "live sessions cannot listen for notifications; their events are polled");
      });
    return this.listening;
  }
}
