import { processCpuMs } from "./machine.ts";
import type { ChildMessage } from "./protocol.ts";
import { countQueries } from "./query-counter.ts";

/**
 * What a target process counts for the benchmark between the parent's `count-start` and
 * `count-stop`: its requests, its database statements and its CPU. Made before the target opens
 * its store, so that every statement is counted.
 */
export class BenchCounting {
  private readonly queries = countQueries();
  private counting = false;
  private requests = 0;
  private cpuAtStart = 0;

  constructor(private readonly send: (message: ChildMessage) => void) {}

  /** Counts one request, while counting. */
  request(): void {
    if (this.counting) this.requests += 1;
  }

  start(): void {
    this.requests = 0;
    this.queries.reset();
    this.cpuAtStart = processCpuMs();
    this.counting = true;
    this.send({ type: "counting" });
  }

  /** Stops counting and sends the counts, with the sliding windows' rows once `windowRows` has read them. */
  stop(windowRows: () => Promise<number | null>): void {
    this.counting = false;
    const counted = { requests: this.requests, queries: this.queries.count, cpuMs: processCpuMs() - this.cpuAtStart };
    void windowRows().then(
      (rows) => this.send({ type: "counted", ...counted, windowRows: rows }),
      () => this.send({ type: "counted", ...counted, windowRows: null }),
    );
  }
}
