import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/** What the server does with one request. */
export type Fault =
  | { status: number; headers?: Record<string, string>; body?: unknown }
  /** Closes the connection without answering. */
  | "reset"
  /** Never answers. */
  | "silence"
  /** Sends the status line and headers, then nothing more. */
  | "stall-body";

/** A request the server received. */
export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  body: string;
  at: number;
}

/**
 * A loopback HTTP server that answers each request with the next fault of its script (the last
 * one repeats), and records every request: a stand-in for a server or network that misbehaves.
 */
export class FaultServer {
  readonly requests: ReceivedRequest[] = [];
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    private readonly script: Fault[],
  ) {}

  static async start(script: Fault[]): Promise<FaultServer> {
    const server = createServer();
    const faults = new FaultServer(server, script);
    server.on("connection", (socket) => {
      faults.sockets.add(socket);
      socket.on("close", () => faults.sockets.delete(socket));
    });
    server.on("request", (request, response) => void faults.answer(request, response));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return faults;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const index = this.requests.length;
    this.requests.push({
      method: request.method ?? "",
      path: request.url ?? "",
      headers: request.headers,
      body: Buffer.concat(chunks).toString("utf8"),
      at: Date.now(),
    });
    const fault = this.script[Math.min(index, this.script.length - 1)];
    if (fault === undefined || fault === "silence") return;
    if (fault === "reset") {
      request.socket.destroy();
      return;
    }
    if (fault === "stall-body") {
      response.writeHead(200, { "content-type": "application/json", "content-length": "1000" });
      response.write("{");
      return;
    }
    response.writeHead(fault.status, { "content-type": "application/json", ...fault.headers });
    response.end(fault.body === undefined ? "" : JSON.stringify(fault.body));
  }
}

/** An envelope the API would answer for a successful `/me`. */
export function meEnvelope(requestId = "req_test"): unknown {
  return {
    ok: true,
    request_id: requestId,
    data: {
      kind: "me",
      user_id: "acct_test",
      credits: 10,
      plan: "pro",
      rate_limit: { limit: 300, remaining: 299, reset: 0 },
    },
    usage: { credits_spent: 0, balance: 10, bytes: 0 },
  };
}

/** An error envelope of `code` and `number`, as the API answers it. */
export function errorEnvelope(code: string, number: number, extra: Record<string, unknown> = {}): unknown {
  return {
    ok: false,
    request_id: "req_failed",
    error: { code, number, message: `${code} happened`, docs: `http://127.0.0.1/docs/errors/${code}`, ...extra },
  };
}
