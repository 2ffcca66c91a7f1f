import net, { type AddressInfo, type Socket } from "node:net";

/**
 * A loopback TCP proxy in front of a PostgreSQL server: processes given `url` reach the database
 * through it, so a test can take the database away from them (every connection cut, new ones
 * refused) while the server itself keeps running for everyone else.
 */
export interface DatabaseProxy {
  /** The database URL with the proxy's host and port in place of the server's. */
  url: string;
  /** Cuts every proxied connection and refuses new ones for `ms`; answers how many it cut and refused. */
  outage(ms: number): Promise<{ cut: number; refused: number }>;
  close(): Promise<void>;
}

export async function startDatabaseProxy(databaseUrl: string): Promise<DatabaseProxy> {
  const target = new URL(databaseUrl);
  const open = new Set<Socket>();
  let refusing = false;
  let refused = 0;
  const server = net.createServer((client) => {
    if (refusing) {
      refused++;
      client.destroy();
      return;
    }
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    for (const socket of [client, upstream]) {
      open.add(socket);
      socket.on("close", () => open.delete(socket));
      socket.on("error", () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = new URL(databaseUrl);
  url.hostname = "127.0.0.1";
  url.port = String((server.address() as AddressInfo).port);
  return {
    url: url.toString(),
    async outage(ms) {
      refusing = true;
      refused = 0;
      const cut = [...open].filter((socket) => socket.remotePort !== Number(target.port || 5432)).length;
      for (const socket of open) socket.destroy();
      await new Promise((resolve) => setTimeout(resolve, ms));
      refusing = false;
      return { cut, refused };
    },
    close() {
      for (const socket of open) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
