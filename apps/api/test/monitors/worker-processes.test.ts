import { eventually } from "@verbatim/testkit/eventually";
import { FakeYoutube, fixture, newpipeRequest } from "@verbatim/testkit/fake-youtube";
import { channelUrl, newUploads } from "@verbatim/testkit/recorded-channel";
import { sql } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createYoutubeAdapter } from "../../src/adapters/youtube/index.ts";
import { createPlatform } from "../../src/assembly/platform.ts";
import { buildServices } from "../../src/assembly/services.ts";
import { createLogger } from "../../src/logger.ts";
import { MonitorEvents } from "../../src/services/monitors/monitor-events.ts";
import type { Monitors } from "../../src/services/monitors/monitors.ts";
import type { Platform } from "../../src/services/process-services.ts";
import { openPostgresStore, type Store } from "../../src/store/database.ts";
import { type ServiceProcess, startServiceProcess } from "../audio/service-process.ts";
import { createPostgresDatabase, type PostgresDatabase } from "../support/store.ts";

const resolveRecording = "youtubechanneltabextractor/videos/generated_mock_2.json";
const firstPageRecording = "youtubechanneltabextractor/videos/generated_mock_3.json";

/** What every worker process of these tests runs with: the scheduler ticking fast against the fake YouTube. */
function workerEnvironment(database: PostgresDatabase, fake: FakeYoutube, extra: Record<string, string> = {}) {
  return {
    DATABASE_URL: database.url,
    VERBATIM_ROLE: "worker",
    VERBATIM_YOUTUBE_ORIGIN: fake.origin,
    VERBATIM_SCHEDULER_TICK_SECONDS: "0.2",
    VERBATIM_ALLOW_PRIVATE_TARGETS: "1",
    VERBATIM_WORKERS: "1",
    VERBATIM_LOG_LEVEL: "info",
    PORT: "0",
    ...extra,
  };
}

let database: PostgresDatabase;
let store: Store;
let platform: Platform;
let fake: FakeYoutube;
let monitors: Monitors;
let accountId: string;
let services: ServiceProcess[] = [];

async function videosEventsPerMonitor(): Promise<Map<string, number>> {
  const rows = await store.query<{ monitor_id: string; events: number }>(
    sql`select monitor_id, count(*)::int as events from monitor_events where type = 'monitor.videos' group by monitor_id`,
  );
  return new Map(rows.map((row) => [row.monitor_id, row.events]));
}

async function createDueMonitors(count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let index = 0; index < count; index++) {
    ids.push((await monitors.create(accountId, { target: channelUrl, interval_minutes: 15 })).id);
  }
  await store.query(sql`update monitors set next_check_at = now() - interval '1 second'`);
  return ids;
}

function publishNewUploads(reply: { hang: true } | null = null): void {
  const { endpoint, body } = newpipeRequest(firstPageRecording);
  const fields = { browseId: String(body.browseId), params: String(body.params) };
  fake.innertube(endpoint, fields, { body: fixture("authored/lists/creativecommons.videos.new-uploads.json") });
  if (reply) fake.innertube(endpoint, fields, reply, 1);
}

describe.skipIf(!process.env.DATABASE_URL)("monitor checks by worker processes on PostgreSQL", () => {
  beforeEach(async () => {
    fake = await FakeYoutube.start();
    fake.replayNewpipe(resolveRecording).replayNewpipe(firstPageRecording);
    database = await createPostgresDatabase(process.env.DATABASE_URL ?? "");
    store = await openPostgresStore(database.url);
    const now = () => new Date();
    platform = await createPlatform(store, { now });
    const logger = createLogger("silent");
    const youtube = createYoutubeAdapter({ origin: fake.origin });
    const services = buildServices(
      { youtube },
      {
        platform,
        now,
        logger,
        allowPrivateTargets: true,
        monitors: { events: new MonitorEvents(store, undefined, now), docsBaseUrl: "http://127.0.0.1" },
      },
    );
    if (!services.monitors) throw new Error("no monitor service");
    monitors = services.monitors;
    accountId = (await platform.accounts.create({ plan: "pro", credits: 1000 })).account.id;
  }, 60_000);

  afterEach(async () => {
    await Promise.all(services.map((service) => service.kill("SIGKILL")));
    services = [];
    platform.slots.close();
    await store.close();
    await database.drop();
    await fake.close();
  });

  it("two worker processes check each due monitor exactly once", async () => {
    const ids = await createDueMonitors(6);
    publishNewUploads();
    services = [
      startServiceProcess(workerEnvironment(database, fake)),
      startServiceProcess(workerEnvironment(database, fake)),
    ];
    await Promise.all(services.map((service) => service.waitForLine(/Verbatim worker running/, 60_000)));
    await eventually(async () => (await videosEventsPerMonitor()).size === ids.length, 60_000);
    // A few more ticks of both workers: nothing is checked twice.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(await videosEventsPerMonitor()).toEqual(new Map(ids.map((id) => [id, 1])));
    const charges = await store.query<{ n: number }>(
      sql`select count(*)::int as n from credit_ledger where kind = 'charge' and account_id = ${accountId}`,
    );
    expect(charges[0]?.n).toBe(ids.length);
    const [event] = await store.query<{ body: { data: { videos: Array<{ videoId: string }> } } }>(
      sql`select body from monitor_events limit 1`,
    );
    expect(event?.body.data.videos.map((video) => video.videoId)).toEqual([...newUploads]);
  }, 120_000);

  it("a worker killed mid-check loses nothing: another checks the monitor once the claim lapses", async () => {
    const [monitorId] = await createDueMonitors(1);
    publishNewUploads({ hang: true });
    const slowUpstream = { VERBATIM_UPSTREAM_TIMEOUT_MS: "60000", VERBATIM_UPSTREAM_BUDGET_MS: "120000" };
    const claim = { VERBATIM_MONITOR_CLAIM_SECONDS: "2" };
    const first = startServiceProcess(workerEnvironment(database, fake, { ...slowUpstream, ...claim }));
    services = [first];
    const pageRequests = () => fake.requests.filter((request) => request.body?.browseId !== undefined).length;
    await eventually(() => pageRequests() >= 1, 60_000);
    await first.kill("SIGKILL");
    expect(await videosEventsPerMonitor()).toEqual(new Map());
    const second = startServiceProcess(workerEnvironment(database, fake, claim));
    services.push(second);
    await eventually(async () => (await videosEventsPerMonitor()).get(monitorId ?? "") === 1, 60_000);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await videosEventsPerMonitor()).toEqual(new Map([[monitorId, 1]]));
  }, 120_000);
});
