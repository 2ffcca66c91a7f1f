import { eventually } from "@verbatim/testkit/eventually";
import {
  answerFirstPageOnce,
  channelUrl,
  firstPageWithUpload,
  serveFreshUploadOnEveryCall,
} from "@verbatim/testkit/recorded-channel";
import { DrizzleQueryError, type SQL, sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createYoutubeAdapter } from "../../src/adapters/youtube/index.ts";
import { newId } from "../../src/ids.ts";
import { MonthlyRefills } from "../../src/services/accounts/monthly-refills.ts";
import type { Store } from "../../src/store/database.ts";
import { Scheduler } from "../../src/workers/scheduler.ts";
import { openTestStore } from "../support/store.ts";
import { serverStartTimeoutMs } from "../support/youtube-server.ts";
import {
  anotherWorker,
  createdMonitor,
  type MonitorHarness,
  recordReportedVideo,
  startMonitorHarness,
} from "./harness.ts";

let h: MonitorHarness;
/** Every test's harness works on this store, emptied: each needs an empty database, not a new one. */
let store: Store;

async function createMonitor(body: Record<string, unknown> = {}) {
  return createdMonitor(await h.server.client.POST("/monitors", { body: { target: channelUrl, ...body } as never }));
}

async function eventCounts(): Promise<Map<string, number>> {
  const rows = await h.server.platform.store.query<{ monitor_id: string; events: number }>(
    sql`select monitor_id, count(*)::int as events from monitor_events where type = 'monitor.videos' group by monitor_id`,
  );
  return new Map(rows.map((row) => [row.monitor_id, row.events]));
}

async function monitorRow(id: string) {
  const [row] = await h.server.platform.store.query<{ next_check_at: string; claimed_until: string | null }>(
    sql`select next_check_at, claimed_until from monitors where id = ${id}`,
  );
  return row;
}

/** What a statement throws when the database went away under it. */
function storeLost(): DrizzleQueryError {
  return new DrizzleQueryError("select credits from accounts", [], new Error("Connection terminated unexpectedly"));
}

/** The schedule of a monitor, read past `store.query`, which a test may make fail. */
async function scheduleOf(id: string) {
  const result = (await h.server.platform.store.db.execute(
    sql`select next_check_at, claimed_until, last_checked_at, last_error from monitors where id = ${id}`,
  )) as unknown as {
    rows: Array<{
      next_check_at: string;
      claimed_until: string | null;
      last_checked_at: string | null;
      last_error: unknown;
    }>;
  };
  const [row] = result.rows;
  if (!row) throw new Error(`no monitor ${id}`);
  return {
    nextCheckAt: new Date(row.next_check_at).getTime(),
    claimedUntil: row.claimed_until === null ? null : new Date(row.claimed_until).getTime(),
    lastCheckedAt: row.last_checked_at,
    lastError: row.last_error,
  };
}

describe("the scheduler", () => {
  beforeAll(async () => {
    store = await openTestStore();
  }, serverStartTimeoutMs);
  afterAll(async () => store?.close());
  beforeEach(async () => {
    h = await startMonitorHarness({ credits: 1000, store });
  }, serverStartTimeoutMs);
  afterEach(async () => h.close());

  it("checks a monitor when it is due, not before, then again one interval later", async () => {
    const monitor = await createMonitor({ interval_minutes: 15 });
    h.publishNewUploads();
    h.clock.advanceMinutes(14);
    await h.scheduler.tick();
    expect(await eventCounts()).toEqual(new Map());
    h.clock.advanceMinutes(1);
    await h.scheduler.tick();
    expect(await eventCounts()).toEqual(new Map([[monitor.id, 1]]));
    const { data } = await h.server.client.GET("/monitors/{monitorId}", {
      params: { path: { monitorId: monitor.id } },
    });
    expect(data?.data.last_checked_at).toBe(h.clock.now().toISOString());
    expect(data?.data.next_check_at).toBe(new Date(h.clock.now().getTime() + 15 * 60_000).toISOString());
    await h.scheduler.tick();
    expect(await eventCounts()).toEqual(new Map([[monitor.id, 1]]));
  });

  it("spreads checks with jitter of at most a tenth of the interval, and never more than 5 minutes", async () => {
    const latest = anotherWorker(h, { random: () => 0.999_999 });
    const monitor = await createMonitor({ interval_minutes: 15 });
    await latest.checkNow(h.server.account.id, monitor.id, { requestId: newId("req"), docsBaseUrl: h.server.baseUrl });
    const fifteen = new Date((await monitorRow(monitor.id))?.next_check_at ?? 0).getTime() - h.clock.now().getTime();
    expect(fifteen).toBeGreaterThan(15 * 60_000 + 89_000);
    expect(fifteen).toBeLessThan(15 * 60_000 + 90_000);
    await h.server.client.PATCH("/monitors/{monitorId}", {
      params: { path: { monitorId: monitor.id } },
      body: { interval_minutes: 1440 },
    });
    await latest.checkNow(h.server.account.id, monitor.id, { requestId: newId("req"), docsBaseUrl: h.server.baseUrl });
    const daily = new Date((await monitorRow(monitor.id))?.next_check_at ?? 0).getTime() - h.clock.now().getTime();
    expect(daily).toBeGreaterThan(1440 * 60_000 + 299_000);
    expect(daily).toBeLessThan(1440 * 60_000 + 300_000);
  });

  it("two workers on one database check each due monitor exactly once", async () => {
    const created = [];
    for (let index = 0; index < 8; index++) created.push(await createMonitor({ interval_minutes: 15 }));
    h.publishNewUploads();
    const before = (await h.balance()) ?? 0;
    h.clock.advanceMinutes(16);
    const second = anotherWorker(h);
    const [first, other] = await Promise.all([h.monitors.runDueChecks(), second.runDueChecks()]);
    expect(first + other).toBe(8);
    expect(await eventCounts()).toEqual(new Map(created.map((monitor) => [monitor.id, 1])));
    expect(await h.balance()).toBe(before - 8);
    expect(await Promise.all([h.monitors.runDueChecks(), second.runDueChecks()])).toEqual([0, 0]);
  });

  it("a check that outlives its claim reports nothing: the worker that took the monitor up reports that due time", async () => {
    const monitor = await createMonitor({ interval_minutes: 15 });
    serveFreshUploadOnEveryCall(h.fake);
    let answer = () => {};
    const answered = new Promise<void>((resolve) => {
      answer = resolve;
    });
    answerFirstPageOnce(h.fake, { body: firstPageWithUpload("stalledUp01"), heldUntil: answered });
    // The stalled worker waits on YouTube longer than its claim lasts.
    const patientYoutube = createYoutubeAdapter({ origin: h.fake.origin, attemptTimeoutMs: 30_000, budgetMs: 30_000 });
    const stalledWorker = anotherWorker(h, { lists: patientYoutube.lists });
    const pageCalls = () => h.fake.requests.filter((request) => request.body?.params !== undefined).length;
    const callsBefore = pageCalls();
    h.clock.advanceMinutes(16);
    const stalled = stalledWorker.runDueChecks();
    await eventually(() => pageCalls() > callsBefore);
    h.clock.advanceMinutes(11);
    expect(await h.monitors.runDueChecks()).toBe(1);
    answer();
    expect(await stalled).toBe(1);
    expect(await eventCounts()).toEqual(new Map([[monitor.id, 1]]));
  });

  it("leaves a monitor another worker holds, and checks it once that worker's claim lapses", async () => {
    const monitor = await createMonitor({ interval_minutes: 15 });
    h.publishNewUploads();
    h.clock.advanceMinutes(16);
    const heldUntil = new Date(h.clock.now().getTime() + 10 * 60_000);
    await h.server.platform.store.query(
      sql`update monitors set claimed_until = ${heldUntil.toISOString()}::timestamptz where id = ${monitor.id}`,
    );
    await h.scheduler.tick();
    expect(await eventCounts()).toEqual(new Map());
    h.clock.advanceMinutes(11);
    await h.scheduler.tick();
    expect(await eventCounts()).toEqual(new Map([[monitor.id, 1]]));
    expect((await monitorRow(monitor.id))?.claimed_until).toBeNull();
  });

  it("a restarted worker finds the schedule and the transcripts a dead one left, and loses nothing", async () => {
    const monitor = await createMonitor({ interval_minutes: 60, transcripts: true });
    h.publishNewUploads();
    await h.scheduler.stop();
    // The dead worker had reported a video and owed its transcript, its claim now lapsed.
    const videosEvent = await recordReportedVideo(h, monitor.id, "GJLlxj_dtq8");
    await h.server.platform.store.query(sql`
      insert into monitor_transcript_tasks (monitor_id, videos_event_id, video_id, status, claimed_until)
      values (${monitor.id}, ${videosEvent}, 'GJLlxj_dtq8', 'pending', ${h.clock.now().toISOString()}::timestamptz)`);
    const restarted = new Scheduler({
      monitors: anotherWorker(h),
      refills: new MonthlyRefills(h.server.platform.store, () => h.clock.now()),
      logger: h.settings.logger,
    });
    h.clock.advanceMinutes(61);
    await restarted.tick();
    const { data } = await h.server.client.GET("/monitors/{monitorId}/events", {
      params: { path: { monitorId: monitor.id }, query: { limit: 50 } },
    });
    const events = data?.data.events ?? [];
    const owed = events.filter(
      (event) => event.type === "monitor.transcript" && event.data.videos_event_id === videosEvent,
    );
    expect(owed).toHaveLength(1);
    expect(owed[0]).toMatchObject({ credits_spent: 1, data: { video_id: "GJLlxj_dtq8", outcome: "ok" } });
    // The dead worker's report, and the restarted worker's of the uploads it finds new.
    expect(events.filter((event) => event.type === "monitor.videos")).toHaveLength(2);
    await restarted.tick();
    const again = await h.server.client.GET("/monitors/{monitorId}/events", {
      params: { path: { monitorId: monitor.id }, query: { limit: 50 } },
    });
    expect(again.data?.data.events).toHaveLength(events.length);
  });

  describe("a scheduled check that meets a store error", () => {
    it("stays due with no last_error, and runs again 5 s later, not when its 10-minute claim lapses", async () => {
      const monitor = await createMonitor({ interval_minutes: 15 });
      h.publishNewUploads();
      h.clock.advanceMinutes(15);
      const before = await scheduleOf(monitor.id);
      const balanceBefore = await h.balance();
      const { credits } = h.server.platform;
      const balance = credits.balance;
      credits.balance = () => Promise.reject(storeLost());
      try {
        await h.scheduler.tick();
      } finally {
        credits.balance = balance;
      }
      expect(await scheduleOf(monitor.id)).toEqual({
        nextCheckAt: before.nextCheckAt,
        claimedUntil: h.clock.now().getTime() + 5_000,
        lastCheckedAt: null,
        lastError: null,
      });
      expect(await eventCounts()).toEqual(new Map());

      h.clock.set(new Date(h.clock.now().getTime() + 5_000));
      await h.scheduler.tick();
      expect(await eventCounts()).toEqual(new Map([[monitor.id, 1]]));
      expect(await h.balance()).toBe((balanceBefore ?? 0) - 1);
      expect(await scheduleOf(monitor.id)).toMatchObject({
        nextCheckAt: h.clock.now().getTime() + 15 * 60_000,
        claimedUntil: null,
        lastError: null,
      });
    });

    it("waits longer the later it runs, and is handed back once the store answers the hand-back too", async () => {
      const monitor = await createMonitor({ interval_minutes: 15 });
      h.publishNewUploads();
      h.clock.advanceMinutes(15);
      const { credits, store } = h.server.platform;
      const balance = credits.balance;
      const query = store.query;
      credits.balance = () => Promise.reject(storeLost());
      try {
        const waits: number[] = [];
        for (const late of [0, 5_000, 10_000, 20_000, 40_000, 80_000]) {
          h.clock.set(new Date((await scheduleOf(monitor.id)).nextCheckAt + late));
          await h.scheduler.tick();
          waits.push(((await scheduleOf(monitor.id)).claimedUntil ?? 0) - h.clock.now().getTime());
        }
        expect(waits).toEqual([5_000, 5_000, 10_000, 20_000, 40_000, 60_000]);

        // The store refuses the hand-back twice more: it is tried again every second until it answers.
        let refusals = 2;
        store.query = <Row>(statement: SQL) =>
          refusals-- > 0 ? Promise.reject(storeLost()) : query.call<Store, [SQL], Promise<Row[]>>(store, statement);
        h.clock.set(new Date((await scheduleOf(monitor.id)).claimedUntil ?? 0));
        await h.scheduler.tick();
        const retryAt = h.clock.now().getTime() + 60_000;
        await eventually(async () => (await scheduleOf(monitor.id)).claimedUntil === retryAt, 5_000);
        expect(refusals).toBeLessThan(0);
      } finally {
        credits.balance = balance;
        store.query = query;
      }
      expect((await scheduleOf(monitor.id)).lastError).toBeNull();
      expect(await eventCounts()).toEqual(new Map());
    });
  });
});
