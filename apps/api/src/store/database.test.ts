import { once } from "node:events";
import { type AddressInfo, connect, createServer } from "node:net";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openEmbeddedStore, type Store } from "./database.ts";

describe("the embedded store", () => {
  let store: Store;

  beforeAll(async () => {
    store = await openEmbeddedStore();
  });
  afterAll(async () => {
    await store.close();
  });

  it("lets the event loop accept a connection while statements are queued, not once they have all run", async () => {
    const server = createServer();
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    const queued = 50;
    let finished = 0;
    const acceptedAfter = new Promise<number>((resolve) => {
      server.once("connection", (socket) => {
        resolve(finished);
        socket.destroy();
      });
    });
    const client = connect((server.address() as AddressInfo).port, "127.0.0.1");
    client.on("error", () => undefined);
    const statements = Array.from({ length: queued }, (_, index) =>
      store.query(sql`select ${index}::int as n`).then(() => {
        finished += 1;
      }),
    );
    await Promise.all(statements);
    const finishedWhenAccepted = await acceptedAfter;
    client.destroy();
    server.close();
    expect(finishedWhenAccepted, `statements finished before the connection was accepted`).toBeLessThan(queued / 2);
  });

  it("creates WAL segments without filling them with zeros first", async () => {
    const [setting] = await store.query<{ value: string }>(sql`select current_setting('wal_init_zero') as value`);
    expect(setting?.value).toBe("off");
  });
});
