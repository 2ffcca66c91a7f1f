import { createServer, request as forward, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

/** A request as it crossed the proxy, and what the server answered to it. */
export interface ProxiedRequest {
  method: string;
  /** The path with its query. */
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The server's status; `null` until it has answered. */
  status: number | null;
  /** The server's answer headers and body, as they were passed on or dropped. */
  answerHeaders: IncomingHttpHeaders;
  answer: string;
  /** Whether the proxy cut the client off instead of passing the answer on. */
  dropped: boolean;
}

/** Which requests lose their answer: `index` counts every request the proxy received, from 0. */
export type DropRule = (request: ProxiedRequest, index: number) => boolean;

export interface RecordingProxy {
  /** `http://127.0.0.1:<port>`: point a client here instead of at the server. */
  baseUrl: string;
  /** Every request received, in order. */
  requests: ProxiedRequest[];
  close(): Promise<void>;
}

/**
 * A loopback HTTP proxy in front of `target` (an origin) that records every request as it reaches
 * the server. The server always gets the whole request and answers it in full; for the requests
 * `dropAnswer` picks, the proxy then destroys the client's connection without passing on a byte:
 * the network failure after the server did the work that retries with an Idempotency-Key exist for.
 */
export async function startRecordingProxy(
  target: string,
  options: { dropAnswer?: DropRule } = {},
): Promise<RecordingProxy> {
  const { hostname, port } = new URL(target);
  const requests: ProxiedRequest[] = [];
  const proxy = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const recorded: ProxiedRequest = {
      method: req.method ?? "GET",
      path: req.url ?? "/",
      headers: req.headers,
      body: body.toString("utf8"),
      status: null,
      answerHeaders: {},
      answer: "",
      dropped: false,
    };
    const index = requests.push(recorded) - 1;
    const upstream = forward({ hostname, port, method: recorded.method, path: recorded.path, headers: req.headers });
    upstream.on("response", async (answer) => {
      const answerChunks: Buffer[] = [];
      for await (const chunk of answer) answerChunks.push(chunk as Buffer);
      const answerBody = Buffer.concat(answerChunks);
      recorded.status = answer.statusCode ?? 0;
      recorded.answerHeaders = answer.headers;
      recorded.answer = answerBody.toString("utf8");
      if (options.dropAnswer?.(recorded, index)) {
        recorded.dropped = true;
        req.socket.destroy();
        return;
      }
      const { "transfer-encoding": _chunked, connection: _connection, ...headers } = answer.headers;
      res.writeHead(recorded.status, { ...headers, "content-length": answerBody.length }).end(answerBody);
    });
    upstream.on("error", () => req.socket.destroy());
    upstream.end(body);
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  return {
    baseUrl: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    requests,
    close() {
      proxy.closeAllConnections();
      return new Promise((resolve, reject) => proxy.close((error) => (error ? reject(error) : resolve())));
    },
  };
}
