import type { Logger } from "../../logger.ts";

export interface HostCircuitsOptions {
  logger: Logger;
  now: () => Date;
  /** Attempts in flight to one host while its circuit is closed. */
  concurrencyPerHost: number;
  /** Consecutive timeouts or connection failures after which a host's deliveries wait. */
  threshold: number;
  /** How long a host that kept failing is left alone before one attempt tries it again. */
  cooldownMs: number;
}

/** A host that stopped answering: its deliveries wait until `openUntil`, then one attempt probes it. */
interface HostCircuit {
  consecutiveFailures: number;
  openUntil: number;
}

/**
 * The webhook deliverer's circuit breaker, this process's own: a host whose attempts keep timing
 * out or failing to connect is left alone for a while, then probed by one attempt.
 */
export class HostCircuits {
  /** Hosts with failures in a row, in this process. */
  private readonly circuits = new Map<string, HostCircuit>();

  constructor(private readonly options: HostCircuitsOptions) {}

  /** Attempts a host may have in flight: none while its circuit is open, one to probe it once the cool-down passed. */
  allowance(host: string, nowMs: number): number {
    const circuit = this.circuits.get(host);
    if (!circuit || circuit.consecutiveFailures < this.options.threshold) return this.options.concurrencyPerHost;
    return nowMs < circuit.openUntil ? 0 : 1;
  }

  /** Counts an attempt's outcome for its host's circuit: a host that answers, whatever it says, is reachable. */
  recordReachability(url: string, unreachable: boolean): void {
    const host = hostOf(url);
    if (!unreachable) {
      this.circuits.delete(host);
      return;
    }
    const circuit = this.circuits.get(host) ?? { consecutiveFailures: 0, openUntil: 0 };
    circuit.consecutiveFailures += 1;
    if (circuit.consecutiveFailures >= this.options.threshold) {
      circuit.openUntil = this.options.now().getTime() + this.options.cooldownMs;
      this.options.logger.warn(
        { host, consecutive_failures: circuit.consecutiveFailures, cooldown_ms: this.options.cooldownMs },
        "webhook host keeps failing; its deliveries wait",
      );
    }
    this.circuits.set(host, circuit);
  }
}

/** The host and port a delivery goes to: limits and circuits are per receiver, whatever the path or query. */
export function hostOf(url: string): string {
  return URL.parse(url)?.host ?? url;
}
