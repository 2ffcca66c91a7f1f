import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashApiKey } from "../../src/services/accounts/api-keys.ts";
import type { Platform } from "../../src/services/process-services.ts";
import type { Store } from "../../src/store/database.ts";
import {
  type ChildScript,
  createPostgresDatabase,
  databaseUrl,
  openPostgresPlatform,
  type PostgresDatabase,
  spawnScript,
  windowSize,
} from "./helpers.ts";

// Real processes need a database they can share: these tests run only with DATABASE_URL.
describe.runIf(databaseUrl)("separate API processes on one PostgreSQL", () => {
  const children: ChildScript[] = [];
  let database: PostgresDatabase;
  let store: Store;
  let platform: Platform;

  beforeAll(async () => {
    database = await createPostgresDatabase(databaseUrl as string);
    ({ store, platform } = await openPostgresPlatform(database.url, 15));
  });

  afterAll(async () => {
    await Promise.all(children.map((child) => child.kill()));
    platform?.slots.close();
    await store?.close();
    await database?.drop();
  });

  function spawn(script: string, args: string[]): ChildScript {
    const child = spawnScript(script, args);
    children.push(child);
    return child;
  }

  describe("a killed process's slots come back when its leases expire", () => {
    it("keeps the slots busy while the holder lives and renews, and frees them within the lease after SIGKILL", async () => {
      const { account } = await platform.accounts.create({ plan: "free", name: "killed holder" });
      const leaseSeconds = 2;
      const holder = spawn("./hold-slots.child.ts", [database.url, account.id, "2", String(leaseSeconds)]);
      expect(await holder.waitForLine(/^held \d+$/, 15_000)).toBe("held 2");
      expect(await platform.slots.inUse(account.id)).toBe(2);
      expect(await platform.slots.acquire(account.id, 2)).toBeNull();

      // Longer than one lease: only the living holder's renewals keep the slots busy.
      await sleep(leaseSeconds * 1000 + 1000);
      expect(holder.process.exitCode).toBeNull();
      expect(await platform.slots.inUse(account.id)).toBe(2);
      expect(await platform.slots.acquire(account.id, 2)).toBeNull();

      await holder.kill("SIGKILL");
      expect(holder.process.signalCode).toBe("SIGKILL");
      const killedAt = Date.now();
      expect(await platform.slots.inUse(account.id)).toBe(2);
      expect(await platform.slots.acquire(account.id, 2)).toBeNull();

      let freedAfter: number | null = null;
      while (Date.now() - killedAt < 6_000) {
        if ((await platform.slots.inUse(account.id)) === 0) {
          freedAfter = Date.now() - killedAt;
          break;
        }
        await sleep(100);
      }
      // A lease lives 2 s from its last renewal; 6 s leaves room for a loaded machine.
      expect(freedAfter, "the slots did not come back within 6 s of the kill").not.toBeNull();
      const leases = [await platform.slots.acquire(account.id, 2), await platform.slots.acquire(account.id, 2)];
      expect(leases).not.toContain(null);
      for (const lease of leases) if (lease) await platform.slots.release(lease);
    }, 40_000);
  });

  describe("two processes authenticating one account concurrently admit no more than its limit", () => {
    it("admits exactly 10 of 80 requests sent by two processes with 40 each at the same instant", async () => {
      const { account, key } = await platform.accounts.create({ plan: "free", name: "hammered" });
      const other = await platform.accounts.keys.create(account.id);
      const now = new Date().toISOString();
      const hammers = [
        spawn("./hammer-authenticate.child.ts", [database.url, hashApiKey(key.key), "40", now]),
        spawn("./hammer-authenticate.child.ts", [database.url, hashApiKey(other.key), "40", now]),
      ];
      await Promise.all(hammers.map((hammer) => hammer.waitForLine(/^ready$/, 15_000)));
      for (const hammer of hammers) hammer.process.stdin.write("go\n");
      const reports = await Promise.all(hammers.map((hammer) => hammer.waitForLine(/^\{/, 15_000)));
      const counts = reports.map((line) => JSON.parse(line) as { admitted: number; refused: number });

      expect(counts.reduce((sum, count) => sum + count.admitted, 0)).toBe(10);
      expect(counts.reduce((sum, count) => sum + count.refused, 0)).toBe(70);
      expect(await windowSize(store, `request:${account.id}`, new Date(now))).toBe(10);
    }, 40_000);
  });
});

function sleep(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}
