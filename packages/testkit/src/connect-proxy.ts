import { createServer, request as httpRequest, type IncomingMessage } from "node:http";
import { type AddressInfo, connect } from "node:net";
import type { Duplex } from "node:stream";

/** A loopback HTTP proxy, as `VERBATIM_PROXY_URLS` names them. */
export interface ConnectProxy {
  url: string;
  close(): Promise<void>;
}

/**
 * Tunnels CONNECT requests to the host and port asked for and forwards absolute-form plain-HTTP
 * requests to their URL's host or, with `pinnedTo` (an origin), always to that origin's port on
 * loopback: a stand-in for a proxy with an egress address (and a resolver) of its own. `onTunnel`
 * and `onForward` see each request as it arrived, its Proxy-Authorization included.
 */
export async function startConnectProxy(
  options: {
    onTunnel?: (request: IncomingMessage) => void;
    onForward?: (request: IncomingMessage) => void;
    pinnedTo?: string;
  } = {},
): Promise<ConnectProxy> {
  const pinnedPort = options.pinnedTo ? new URL(options.pinnedTo).port : undefined;
  const proxy = createServer((req, res) => {
    options.onForward?.(req);
    const target = new URL(req.url ?? "");
    const upstream = httpRequest(
      {
        host: pinnedPort ? "127.0.0.1" : target.hostname,
        port: pinnedPort ?? target.port,
        method: req.method,
        path: target.pathname + target.search,
        headers: req.headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  });
  // closeAllConnections does not reach tunnels: the server no longer tracks a socket after CONNECT.
  const tunnels = new Set<Duplex>();
  proxy.on("connect", (req, clientSocket, head) => {
    options.onTunnel?.(req);
    tunnels.add(clientSocket);
    clientSocket.once("close", () => tunnels.delete(clientSocket));
    const [host, port] = pinnedPort ? ["127.0.0.1", pinnedPort] : (req.url ?? "").split(":");
    const target = connect(Number(port), host ?? "127.0.0.1", () => {
      clientSocket.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      target.write(head);
      target.pipe(clientSocket);
      clientSocket.pipe(target);
    });
    target.on("error", () => clientSocket.destroy());
    clientSocket.on("error", () => target.destroy());
    clientSocket.once("close", () => target.destroy());
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    async close() {
      proxy.closeAllConnections();
      for (const tunnel of tunnels) tunnel.destroy();
      await new Promise((resolve) => proxy.close(resolve));
    },
  };
}
