import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { createServer, request as httpRequest, type IncomingMessage } from "node:http";
import { type AddressInfo, connect, type LookupFunction } from "node:net";
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
 *
 * With `connectsOnlyTo`, it resolves each host as written, as an ordinary proxy does (`lookup`,
 * default `dns.lookup`, reads `0x7f.1` as 127.0.0.1), and connects only when every address is
 * one `connectsOnlyTo` admits; to anything else it answers 502 without connecting, so a test
 * never reaches beyond loopback.
 */
export async function startConnectProxy(
  options: {
    onTunnel?: (request: IncomingMessage) => void;
    onForward?: (request: IncomingMessage) => void;
    pinnedTo?: string;
    connectsOnlyTo?: (address: string) => boolean;
    lookup?: LookupFunction;
  } = {},
): Promise<ConnectProxy> {
  const pinnedPort = options.pinnedTo ? new URL(options.pinnedTo).port : undefined;
  const resolveAdmitted = (host: string, resolved: (address: string | null) => void) => {
    const admits = options.connectsOnlyTo;
    if (!admits) return resolved(host);
    (options.lookup ?? dnsLookup)(host, { all: true }, (error, addresses) => {
      const all = error ? [] : (addresses as unknown as LookupAddress[]);
      const [first] = all;
      resolved(first && all.every(({ address }) => admits(address)) ? first.address : null);
    });
  };
  const proxy = createServer((req, res) => {
    options.onForward?.(req);
    const target = new URL(req.url ?? "");
    const forwardTo = (host: string | null) => {
      if (host === null) return void res.writeHead(502, { "content-length": "0" }).end();
      const upstream = httpRequest(
        {
          host,
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
    };
    if (pinnedPort) forwardTo("127.0.0.1");
    else resolveAdmitted(target.hostname.replace(/^\[|\]$/g, ""), forwardTo);
  });
  // closeAllConnections does not reach tunnels: the server no longer tracks a socket after CONNECT.
  const tunnels = new Set<Duplex>();
  proxy.on("connect", (req, clientSocket, head) => {
    options.onTunnel?.(req);
    tunnels.add(clientSocket);
    clientSocket.once("close", () => tunnels.delete(clientSocket));
    clientSocket.on("error", () => clientSocket.destroy());
    const tunnelTo = (host: string, port: number) => {
      const target = connect(port, host, () => {
        clientSocket.write("HTTP/1.1 200 Connection Established\r\n\r\n");
        target.write(head);
        target.pipe(clientSocket);
        clientSocket.pipe(target);
      });
      target.on("error", () => clientSocket.destroy());
      clientSocket.once("close", () => target.destroy());
    };
    const [, written = "", port = ""] = /^\[?(.*?)\]?:(\d+)$/.exec(req.url ?? "") ?? [];
    if (pinnedPort) return tunnelTo("127.0.0.1", Number(pinnedPort));
    resolveAdmitted(written, (host) => {
      if (host === null) clientSocket.end("HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n");
      else tunnelTo(host, Number(port));
    });
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
