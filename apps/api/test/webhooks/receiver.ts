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
  close(): Promise<void>;
}

export async function startReceiver(
  answer: (request: ReceivedRequest) => Answer | Promise<Answer> = () => ({ status: 200 }),
): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  let connections = 0;
  const server = createServer(async (req, res) => {
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
    close() {
      server.closeAllConnections();
      return new Promise((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
    },
  };
}
