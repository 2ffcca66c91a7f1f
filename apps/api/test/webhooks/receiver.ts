import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

/** One request as the receiver saw it. */
export interface ReceivedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** `Date.now()` when the body had arrived. */
  receivedAt: number;
}

/** Counts requests in flight (arrived, not yet answered or cut off), and the most there were at once. */
export class InFlightGauge {
  current = 0;
  peak = 0;

  enter(): void {
    this.current += 1;
    this.peak = Math.max(this.peak, this.current);
  }

  leave(): void {
    this.current -= 1;
  }
}

/** What the receiver answers; `hang` never answers. */
export type Answer = { status: number; headers?: Record<string, string> } | "hang";

/** A webhook endpoint on a loopback port that records every request and answers as told. */
export interface Receiver {
  /** `http://127.0.0.1:<port><path>`. */
  url(path?: string): string;
  port: number;
  requests: ReceivedRequest[];
  /** TCP connections accepted: a refused target must leave it at 0. */
  connections(): number;
  /** Its requests in flight, and the most at once. */
  inFlight: InFlightGauge;
  close(): Promise<void>;
}

/** `alsoCounting`: gauges shared with other receivers, to count the requests in flight to several at once. */
export async function startReceiver(
  answer: (request: ReceivedRequest) => Answer | Promise<Answer> = () => ({ status: 200 }),
  alsoCounting: InFlightGauge[] = [],
): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const inFlight = new InFlightGauge();
  const gauges = [inFlight, ...alsoCounting];
  let connections = 0;
  const server = createServer(async (req, res) => {
    for (const gauge of gauges) gauge.enter();
    res.once("close", () => {
      for (const gauge of gauges) gauge.leave();
    });
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const request: ReceivedRequest = {
      path: req.url ?? "",
      headers: req.headers,
      body: Buffer.concat(chunks).toString("utf8"),
      receivedAt: Date.now(),
    };
    requests.push(request);
    const reply = await answer(request);
    if (reply === "hang") return;
    res.writeHead(reply.status, reply.headers).end("answer body");
  });
  server.on("connection", () => {
    connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (path = "/hook") => `http://127.0.0.1:${port}${path}`,
    port,
    requests,
    connections: () => connections,
    inFlight,
    close() {
      server.closeAllConnections();
      return new Promise((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
    },
  };
}
