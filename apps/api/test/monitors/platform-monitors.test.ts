import { readFile } from "node:fs/promises";
import { eventually } from "@verbatim/testkit/eventually";
import { audioFixture, podcastFixture } from "@verbatim/testkit/fake-podcast-host";
import { type PlatformDouble, startPlatformDouble } from "@verbatim/testkit/platform-double";
import { sql } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AudioServer, startAudioServer } from "../audio/harness.ts";
import type { Loose } from "../audio/requests.ts";
import { send } from "../support/http.ts";
import { type ReceivedRequest, type Receiver, startReceiver } from "../webhooks/receiver.ts";

// Monitors of a feed (on the fake podcast host) and of a TikTok profile (the real yt-dlp through
// the platform double): each sees a new item appear upstream, reports it in one signed
// monitor.videos event, fetches its transcript through the row's url, and delivers each event
// once. packages/testkit/fixtures/platforms/tiktok/SOURCE.md ("Profiles") and
// packages/testkit/fixtures/podcasts/SOURCE.md say what the upstream answers mirror.
const feedOrigin = "https://podcasts.example/";
const feedPath = "/show/feed.xml";
const profile = "https://www.tiktok.com/@verbatim.tests";

let double: PlatformDouble;
let server: AudioServer;
let receiver: Receiver;
let monitors: NonNullable<AudioServer["monitors"]>;

beforeAll(async () => {
  double = await startPlatformDouble({ platforms: ["tiktok"] });
  receiver = await startReceiver();
  // No workers: an 11 s episode is transcribed within the check.
  server = await startAudioServer({ platformDouble: double, monitors: true, workers: 0, credits: 1_000 });
  if (!server.monitors) throw new Error("the harness built no monitor service");
  monitors = server.monitors;
  const { host } = server;
  host.serveFixture(feedPath, "verbatim/show-feed.xml", "application/rss+xml; charset=utf-8", {
    replace: { [feedOrigin]: host.url("/") },
  });
  for (const episode of [1, 2, 3])
    host.serveFile(`/media/episode-${episode}.mp3`, audioFixture("whisper-cpp/jfk.mp3"), "audio/mpeg");
}, 120_000);

afterAll(async () => {
  await server?.close();
  await receiver?.close();
  await double?.close();
});

function createMonitor(body: Record<string, unknown>) {
  return send(server, { method: "POST", path: "/api/v2/monitors", json: body });
}

/** The feed with a third episode, the newest, on top of the two it had. */
async function feedWithThirdEpisode(): Promise<string> {
  const feed = (await readFile(podcastFixture("verbatim/show-feed.xml"), "utf8"))
    .split(feedOrigin)
    .join(server.host.url("/"));
  const third = `<item>
            <title>Episode 3: Ask what you can do</title>
            <guid isPermaLink="false">verbatim-show-episode-3</guid>
            <pubDate>Mon, 16 Mar 2026 06:00:00 GMT</pubDate>
            <enclosure url="${server.host.url("/media/episode-3.mp3")}" length="76447" type="audio/mpeg" />
        </item>
        <item>`;
  return feed.replace("<item>", third);
}

/** The deliveries the receiver got for one monitor, each verified with the monitor's own secret. */
function deliveriesOf(monitorId: string, secret: string): Loose[] {
  return receiver.requests
    .map((request: ReceivedRequest) => ({ request, body: JSON.parse(request.body) as Loose }))
    .filter(({ body }) => body.monitor?.id === monitorId)
    .map(({ request }) =>
      new Webhook(secret).verify(request.body, {
        "webhook-id": String(request.headers["webhook-id"]),
        "webhook-timestamp": String(request.headers["webhook-timestamp"]),
        "webhook-signature": String(request.headers["webhook-signature"]),
      }),
    );
}

/** A check's two events, whatever order they were delivered in. */
function byType(events: Loose[]): { videos: Loose; transcript: Loose } {
  return {
    videos: events.find((event) => event.type === "monitor.videos"),
    transcript: events.find((event) => event.type === "monitor.transcript"),
  };
}

/** The monitor's deliveries once every one is delivered: each attempted once, each received once. */
async function deliveredOnce(monitorId: string, secret: string, count: number): Promise<Loose[]> {
  const rows = await eventually(async () => {
    const deliveries = await server.store.query<{ status: string; attempts: number }>(
      sql`select status, attempts from webhook_deliveries where monitor_id = ${monitorId}`,
    );
    return deliveries.length === count && deliveries.every((row) => row.status === "delivered") ? deliveries : null;
  }, 30_000);
  expect(rows.map((row) => row.attempts)).toEqual(Array(count).fill(1));
  const delivered = deliveriesOf(monitorId, secret);
  expect(delivered).toHaveLength(count);
  return delivered;
}

describe("a feed monitor", () => {
  let monitor: Loose;

  beforeAll(async () => {
    const created = await createMonitor({
      target: server.host.url(feedPath),
      transcripts: true,
      interval_minutes: 15,
      webhook_url: receiver.url("/feed"),
    });
    expect(created.status, created.text).toBe(201);
    monitor = (created.body as Loose).data;
  });

  it("is created on the feed's episodes as a free baseline, as a podcast monitor without options", () => {
    expect(monitor).toMatchObject({
      platform: "podcast",
      type: "channel",
      target: server.host.url(feedPath),
      options: {},
      transcripts: true,
      baseline_count: 2,
    });
  });

  it("reports a new episode at its scheduled check, transcribes it from the row's url and delivers each event once", async () => {
    server.host.serve(feedPath, {
      contentType: "application/rss+xml; charset=utf-8",
      body: await feedWithThirdEpisode(),
    });
    const before = await server.platform.credits.balance(server.account.id);
    await server.store.query(
      sql`update monitors set next_check_at = now() - interval '1 second' where id = ${monitor.id}`,
    );
    expect(await monitors.runDueChecks()).toBe(1);
    const { videos, transcript } = byType(await deliveredOnce(monitor.id, monitor.webhook_secret, 2));
    expect(videos).toMatchObject({
      type: "monitor.videos",
      monitor: { id: monitor.id, platform: "podcast", target: server.host.url(feedPath) },
      credits_spent: 1,
      data: { videos: [{ title: "Episode 3: Ask what you can do", url: server.host.url("/media/episode-3.mp3") }] },
    });
    const row = videos.data.videos[0];
    expect(transcript).toMatchObject({
      type: "monitor.transcript",
      monitor: { id: monitor.id, platform: "podcast" },
      data: {
        video_id: row.videoId,
        url: row.url,
        outcome: "ok",
        transcript: { video_id: row.videoId, source: "audio" },
        videos_event_id: videos.id,
      },
    });
    expect(await server.platform.credits.balance(server.account.id)).toBe((before ?? 0) - 1 - transcript.credits_spent);

    expect(await monitors.runDueChecks()).toBe(0);
    const check = await send(server, { method: "POST", path: `/api/v2/monitors/${monitor.id}/check` });
    expect(check.status, check.text).toBe(200);
    expect((check.body as Loose).data).toMatchObject({ new_videos: 0, event: null });
    await deliveredOnce(monitor.id, monitor.webhook_secret, 2);
  });
});

describe("a TikTok profile monitor", () => {
  it("reports the post that appears on the profile, fetches its transcript from the row's url and delivers each signed event once", async () => {
    const beforeEighth = double.serve({
      url: "https://www.tiktok.com/api/creator/item_list/",
      headers: { "content-type": "application/json; charset=utf-8" },
      file: "tiktok/api/item-list-before-08.json",
    });
    const created = await createMonitor({ target: profile, transcripts: true, webhook_url: receiver.url("/tiktok") });
    beforeEighth();
    expect(created.status, created.text).toBe(201);
    const monitor = (created.body as Loose).data;
    expect(monitor).toMatchObject({ platform: "tiktok", options: {}, baseline_count: 2 });

    const check = await send(server, { method: "POST", path: `/api/v2/monitors/${monitor.id}/check` });
    expect(check.status, check.text).toBe(200);
    const result = (check.body as Loose).data;
    expect(result.new_videos).toBe(1);
    expect(result.event.data.videos.map((row: Loose) => row.videoId)).toEqual(["7400000000000000008"]);

    const { videos, transcript } = byType(await deliveredOnce(monitor.id, monitor.webhook_secret, 2));
    expect(videos).toMatchObject({ id: result.event.id, type: "monitor.videos", monitor: { platform: "tiktok" } });
    expect((check.body as Loose).usage.credits_spent).toBe(1 + transcript.credits_spent);
    expect(transcript).toMatchObject({
      type: "monitor.transcript",
      credits_spent: 1,
      data: {
        video_id: "7400000000000000008",
        url: "https://www.tiktok.com/@verbatim.tests/video/7400000000000000008",
        outcome: "ok",
        transcript: { platform: "tiktok", video_id: "7400000000000000008" },
      },
    });
  });
});

describe("refusals of a monitor's platform and options", () => {
  it("refuses a platform the target does not name with invalid_input (3005)", async () => {
    const answer = await createMonitor({ target: server.host.url(feedPath), platform: "youtube" });
    expect(answer.status, answer.text).toBe(422);
    expect((answer.body as Loose).error).toMatchObject({ code: "invalid_input", number: 3005 });
  });

  it("refuses tab for a TikTok profile with invalid_request (1001) at /body/tab, before yt-dlp runs", async () => {
    const before = double.requests.length;
    const answer = await createMonitor({ target: profile, tab: "shorts" });
    expect(answer.status, answer.text).toBe(400);
    expect((answer.body as Loose).error).toMatchObject({
      code: "invalid_request",
      number: 1001,
      issues: [{ path: "/body/tab" }],
    });
    expect(double.requests.length).toBe(before);
  });

  it("refuses a new tab for a feed monitor with invalid_request (1001) at /body/tab", async () => {
    const created = await createMonitor({ target: server.host.url(feedPath) });
    expect(created.status, created.text).toBe(201);
    const answer = await send(server, {
      method: "PATCH",
      path: `/api/v2/monitors/${(created.body as Loose).data.id}`,
      json: { tab: "live" },
    });
    expect(answer.status, answer.text).toBe(400);
    expect((answer.body as Loose).error).toMatchObject({ code: "invalid_request", issues: [{ path: "/body/tab" }] });
  });
});
