import { createServer } from "node:http";
import { type AddressInfo, connect } from "node:net";

/** A loopback HTTP proxy, as `VERBATIM_PROXY_URLS` names them. */
export interface ConnectProxy {
  url: string;
  close(): Promise<void>;
}

/**
 * Tunnels CONNECT requests to the host and port asked for or, with `pinnedTo` (an origin), always
 * to that origin's port on loopback: a stand-in for a proxy with an egress address of its own.
 */
export async function startConnectProxy(
  options: { onTunnel?: () => void; pinnedTo?: string } = {},
): Promise<ConnectProxy> {
  const proxy = createServer();
  proxy.on("connect", (req, clientSocket, head) => {
    options.onTunnel?.();
    const [host, port] = options.pinnedTo ? ["127.0.0.1", new URL(options.pinnedTo).port] : (req.url ?? "").split(":");
    const target = connect(Number(port), host ?? "127.0.0.1", () => {
      clientSocket.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      target.write(head);
      target.pipe(clientSocket);
      clientSocket.pipe(target);
    });
    target.on("error", () => clientSocket.destroy());
    clientSocket.on("error", () => target.destroy());
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    async close() {
      proxy.closeAllConnections();
      await new Promise((resolve) => proxy.close(resolve));
    },
  };
}
