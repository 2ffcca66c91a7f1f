import { ApiError } from "../errors.ts";

/** Event streams an account may hold open on one API process, unless the operator sets another number. */
export const defaultEventStreamsPerAccount = 16;
/** Seconds a client refused for its open streams is told to wait: streams close as sessions end or readers leave. */
const openStreamsRetryAfterSeconds = 5;

/**
 * The live event streams each account holds open on this process. A stream keeps its socket for
 * as long as its session runs, hours perhaps, while the allowance counts only its opening: without
 * a cap one account could hold every socket the process has.
 */
export class OpenEventStreams {
  private readonly open = new Map<string, number>();

  constructor(private readonly perAccount: number) {}

  /**
   * Counts a stream the account opens, or refuses with 429 `rate_limited` when it holds
   * `perAccount` already. Answers the stream's release; releasing twice counts once.
   */
  admit(accountId: string): () => void {
    const count = this.open.get(accountId) ?? 0;
    if (count >= this.perAccount) {
      throw new ApiError(
        "rate_limited",
        `The account holds ${count} live event streams open on this server, the most it allows. Close one, or read the session with GET /live/{id}.`,
        { retryAfterSeconds: openStreamsRetryAfterSeconds },
      );
    }
    this.open.set(accountId, count + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.open.get(accountId) ?? 1) - 1;
      if (left === 0) this.open.delete(accountId);
      else this.open.set(accountId, left);
    };
  }
}
