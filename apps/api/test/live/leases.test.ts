import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createPlatform } from "../../src/assembly/platform.ts";
import { newId } from "../../src/ids.ts";
import { createLogger } from "../../src/logger.ts";
import { LiveFeed } from "../../src/services/live/live-feed.ts";
import { LeaseLost, LiveStore } from "../../src/services/live/live-store.ts";
import type { Store } from "../../src/store/database.ts";
import { liveSessions } from "../../src/store/schema.ts";
import { openTestStore } from "../support/store.ts";

let store: Store;
let feed: LiveFeed;
let accountId: string;
let clock = Date.parse("2026-11-22T10:00:00Z");
const now = () => new Date(clock);

beforeAll(async () => {
  store = await openTestStore();
  const platform = await createPlatform(store, { now });
  accountId = (await platform.accounts.create({ plan: "pro", name: "leases" })).account.id;
  feed = new LiveFeed(store, createLogger("silent"));
});
// Each case claims among its own sessions only.
beforeEach(async () => {
  await store.db.delete(liveSessions);
});
afterAll(async () => {
  await feed?.close();
  await store?.close();
});

async function newSession(): Promise<string> {
  const id = newId("live");
  await store.db.insert(liveSessions).values({
    id,
    accountId,
    status: "live",
    url: "https://radio.example.org/live.m3u8",
    source: {},
    stream: { kind: "direct", url: "https://radio.example.org/live.m3u8" },
    partials: true,
    maxMinutes: 60,
    requestId: newId("req"),
    docsBaseUrl: "http://127.0.0.1",
    createdAt: now(),
    nextAttemptAt: now(),
  });
  return id;
}

describe("the lease of a live session (docs/decisions.md, rule 16)", () => {
  it("fences off a run whose lease lapsed, even when the same worker claims the session again", async () => {
    const sessions = new LiveStore(store, feed, now);
    const id = await newSession();
    const [first] = await sessions.claim("wrk_same", 10, 2);
    expect(first?.row.id).toBe(id);
    expect(first?.lease).toMatch(/^wrk_same\//);
    expect(await sessions.claim("wrk_same", 10, 2)).toEqual([]);

    clock += 3_000;
    const [second] = await sessions.claim("wrk_same", 10, 2);
    expect(second?.resumed).toBe(false);
    expect(second?.lease).not.toBe(first?.lease);
    await expect(sessions.withLease(id, first?.lease ?? "", async () => "written")).rejects.toBeInstanceOf(LeaseLost);
    expect(await sessions.renew(id, first?.lease ?? "", 2)).toEqual({ held: false, stopRequested: false });
    expect(await sessions.withLease(id, second?.lease ?? "", async () => "written")).toBe("written");
  });

  it("leaves out the sessions the worker already runs, and those another holds", async () => {
    const sessions = new LiveStore(store, feed, now);
    clock += 10_000;
    const mine = await newSession();
    const theirs = await newSession();
    const [taken] = await sessions.claim("wrk_other", 1, 60);
    expect(taken?.row.id).toBe(mine);
    clock += 61_000;
    const claimed = await sessions.claim("wrk_other", 10, 60, [mine]);
    expect(claimed.map((entry) => entry.row.id)).toEqual([theirs]);
    expect(await sessions.claim("wrk_third", 10, 60)).toEqual([
      expect.objectContaining({ row: expect.objectContaining({ id: mine }) }),
    ]);
  });

  it("records events numbered after the newest, in the holder's transaction", async () => {
    const sessions = new LiveStore(store, feed, now);
    clock += 120_000;
    const id = await newSession();
    const [claimed] = await sessions.claim("wrk_events", 1, 60);
    const recorded = await sessions.withLease(id, claimed?.lease ?? "", (_tx, record) =>
      record([
        { type: "live.started", fields: {} },
        { type: "live.gap", fields: { from: 0, to: 1, reason: "fell_behind" } },
      ]),
    );
    expect(recorded.map((event) => [event.seq, event.type])).toEqual([
      [1, "live.started"],
      [2, "live.gap"],
    ]);
    const failing = sessions.withLease(id, claimed?.lease ?? "", async (_tx, record) => {
      await record([{ type: "live.segment", fields: {} }]);
      throw new Error("the recognizer broke");
    });
    await expect(failing).rejects.toThrow("the recognizer broke");
    expect((await sessions.events(id, 0, 10)).map((event) => event.seq)).toEqual([1, 2]);
  });
});
