import { performance } from "node:perf_hooks";
import autocannon from "autocannon";

/** One measured run of the load generator against one target. */
export interface Measurement {
  responses: number;
  seconds: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  /** Connection errors and timeouts. */
  errors: number;
  /** Responses by status code, to say what went wrong when non-2xx is not 0. */
  statusCodes: Record<string, number>;
}

export interface LoadOptions {
  url: string;
  /** GET unless told; a POST sends `body` as JSON. */
  method?: "GET" | "POST";
  /** The JSON request body every request sends. */
  body?: string;
  /** One key per connection, round robin: the load of many accounts, as a service sees it. */
  apiKeys: string[];
  connections: number;
  seconds: number;
}

/**
 * Runs autocannon in this process for `seconds`. Latencies are kept at full precision from each
 * response (autocannon's own histogram rounds to whole milliseconds, too coarse for the bare route).
 */
export function load(options: LoadOptions): Promise<Measurement> {
  const latencies: number[] = [];
  const statusCodes: Record<string, number> = {};
  let non2xx = 0;
  let nextKey = 0;
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: options.url,
        method: options.method ?? "GET",
        ...(options.body === undefined ? {} : { body: options.body }),
        connections: options.connections,
        duration: options.seconds,
        setupClient: (client) => {
          const key = options.apiKeys[nextKey++ % options.apiKeys.length];
          client.setHeaders({
            ...(options.body === undefined ? {} : { "content-type": "application/json" }),
            ...(key ? { authorization: `Bearer ${key}` } : {}),
          });
        },
        timeout: 10,
      },
      (error, result) => {
        const seconds = (performance.now() - started) / 1000;
        if (error) {
          reject(error);
          return;
        }
        latencies.sort((a, b) => a - b);
        resolve({
          responses: latencies.length,
          seconds,
          requestsPerSecond: latencies.length / seconds,
          p50Ms: percentile(latencies, 0.5),
          p99Ms: percentile(latencies, 0.99),
          non2xx,
          errors: result.errors,
          statusCodes,
        });
      },
    );
    instance.on("response", (_client, statusCode, _bytes, responseTime) => {
      latencies.push(responseTime);
      statusCodes[statusCode] = (statusCodes[statusCode] ?? 0) + 1;
      if (statusCode < 200 || statusCode > 299) non2xx += 1;
    });
  });
}

function percentile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
}
