import { eventually } from "@verbatim/testkit/eventually";
import { channelUrl, newUploads, recordedFirstPageSize } from "@verbatim/testkit/recorded-channel";
import { sql } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Store } from "../../src/store/database.ts";
import { expectErrorEnvelope, send as sendRaw } from "../support/http.ts";
import { openTestStore } from "../support/store.ts";
import { serverStartTimeoutMs } from "../support/youtube-server.ts";
import { createdMonitor, type MonitorHarness, startMonitorHarness } from "./harness.ts";

let h: MonitorHarness;
/** Every test's harness works on this store, emptied: each needs an empty database, not a new one. */
let store: Store;

beforeAll(async () => {
  store = await openTestStore();
}, serverStartTimeoutMs);
afterAll(async () => store?.close());

async function createMonitor(body: Record<string, unknown> = {}) {
  return createdMonitor(
    await h.server.client.POST("/monitors", {
      body: { target: channelUrl, webhook_url: h.receiver.url(), ...body } as never,
    }),
  );
}

async function checkNow(monitorId: string) {
  const { data, error, response } = await h.server.client.POST("/monitors/{monitorId}/check", {
    params: { path: { monitorId } },
  });
  if (!data) throw new Error(`check failed: ${response.status} ${JSON.stringify(error)}`);
  return data;
}

async function ledgerCharges() {
  return h.server.platform.store.query<{ delta: number; operation: string }>(
    sql`select delta::int as delta, operation from credit_ledger where kind = 'charge' order by id`,
  );
}

describe("monitors over HTTP", () => {
  beforeEach(async () => {
    h = await startMonitorHarness({ credits: 50, store });
  }, serverStartTimeoutMs);
  afterEach(async () => h.close());

  it("creates a monitor with a free baseline of the tab's newest videos, its own whsec_ secret shown once", async () => {
    const before = await h.balance();
    const created = await createMonitor({
      name: "cc uploads",
      interval_minutes: 15,
      type: "channel",
      platform: "youtube",
    });
    expect(created).toMatchObject({
      kind: "monitor",
      type: "channel",
      platform: "youtube",
      target: channelUrl,
      options: { tab: "videos" },
      name: "cc uploads",
      status: "active",
      has_new: false,
      last_event_id: null,
      interval_minutes: 15,
      transcripts: false,
      last_checked_at: null,
      last_error: null,
      baseline_count: recordedFirstPageSize,
    });
    expect(created.webhook_secret).toMatch(/^whsec_[A-Za-z0-9+/=]{32}$/);
    expect(created.webhook_secret).not.toBe(await h.server.platform.accounts.webhookSecret(h.server.account.id));
    expect(new Date(created.next_check_at ?? 0).getTime() - h.clock.now().getTime()).toBe(15 * 60_000);
    expect(await h.balance()).toBe(before);
    const { data } = await h.server.client.GET("/monitors/{monitorId}", {
      params: { path: { monitorId: created.id } },
    });
    expect(data?.data).not.toHaveProperty("webhook_secret");
    expect(data?.data).not.toHaveProperty("baseline_count");
  });

  it("a check finds exactly the new uploads, charges 1 credit, and delivers one signed monitor.videos event", async () => {
    const monitor = await createMonitor();
    h.publishNewUploads();
    const before = await h.balance();
    const check = await checkNow(monitor.id);
    expect(check.data.new_videos).toBe(3);
    expect(check.data.error).toBeNull();
    expect(check.data.event?.data.videos.map((video) => video.videoId)).toEqual([...newUploads]);
    expect(check.data.event?.credits_spent).toBe(1);
    expect(check.usage).toMatchObject({ credits_spent: 1, balance: (before ?? 0) - 1 });
    expect(await h.balance()).toBe((before ?? 0) - 1);
    expect(await ledgerCharges()).toEqual([{ delta: -1, operation: "POST /monitors/{monitorId}/check" }]);

    const delivery = await eventually(() => h.receiver.requests[0]);
    const payload = new Webhook(monitor.webhook_secret).verify(delivery.body, {
      "webhook-id": String(delivery.headers["webhook-id"]),
      "webhook-timestamp": String(delivery.headers["webhook-timestamp"]),
      "webhook-signature": String(delivery.headers["webhook-signature"]),
    }) as Record<string, unknown>;
    expect(delivery.headers["webhook-id"]).toBe(check.data.event?.id);
    expect(payload).toMatchObject({
      id: check.data.event?.id,
      type: "monitor.videos",
      monitor: { id: monitor.id, type: "channel", platform: "youtube", target: channelUrl },
      credits_spent: 1,
    });
    expect(payload).not.toHaveProperty("delivery");
    const accountSecret = await h.server.platform.accounts.webhookSecret(h.server.account.id);
    expect(() =>
      new Webhook(accountSecret).verify(delivery.body, {
        "webhook-id": String(delivery.headers["webhook-id"]),
        "webhook-timestamp": String(delivery.headers["webhook-timestamp"]),
        "webhook-signature": String(delivery.headers["webhook-signature"]),
      }),
    ).toThrow();

    const again = await checkNow(monitor.id);
    expect(again.data).toMatchObject({ new_videos: 0, event: null, error: null });
    expect(again.usage.credits_spent).toBe(0);
    expect(await h.balance()).toBe((before ?? 0) - 1);
  });

  it("an empty check costs nothing and records when it ran", async () => {
    const monitor = await createMonitor();
    const before = await h.balance();
    h.clock.advanceMinutes(5);
    const check = await checkNow(monitor.id);
    expect(check.data).toMatchObject({ new_videos: 0, event: null, error: null });
    expect(check.data.monitor.last_checked_at).toBe(h.clock.now().toISOString());
    expect(check.usage.credits_spent).toBe(0);
    expect(await h.balance()).toBe(before);
    expect(await ledgerCharges()).toEqual([]);
  });

  it("with transcripts on, each new video's transcript is its own monitor.transcript event, charged like a transcript", async () => {
    const monitor = await createMonitor({ transcripts: true });
    h.publishNewUploads();
    const before = (await h.balance()) ?? 0;
    const check = await checkNow(monitor.id);
    // The videos event (1) and the two captioned uploads (1 each); the taken-down one is free.
    expect(check.usage.credits_spent).toBe(3);
    expect(await h.balance()).toBe(before - 3);
    const { data } = await h.server.client.GET("/monitors/{monitorId}/events", {
      params: { path: { monitorId: monitor.id }, query: { limit: 10 } },
    });
    const events = data?.data.events ?? [];
    expect(events.map((event) => event.type)).toEqual([
      "monitor.transcript",
      "monitor.transcript",
      "monitor.transcript",
      "monitor.videos",
    ]);
    const transcripts = events.filter((event) => event.type === "monitor.transcript");
    const byVideo = new Map(transcripts.map((event) => [event.data.video_id, event]));
    expect(byVideo.get("GJLlxj_dtq8")).toMatchObject({
      credits_spent: 1,
      data: { outcome: "ok", job_id: null, error: null, videos_event_id: check.data.event?.id },
    });
    expect(byVideo.get("GJLlxj_dtq8")?.data.transcript?.segments.length).toBeGreaterThan(0);
    expect(byVideo.get("F1xioXWb8CY")).toMatchObject({ credits_spent: 1, data: { outcome: "ok" } });
    expect(byVideo.get("authoredNW1")).toMatchObject({
      credits_spent: 0,
      data: { outcome: "error", transcript: null, error: { code: "unavailable" } },
    });
    await eventually(() => h.receiver.requests.length === 4);
    const delivered = h.receiver.requests.map((request) => JSON.parse(request.body).type as string);
    expect(delivered.filter((type) => type === "monitor.transcript")).toHaveLength(3);
  });

  it("without the credits a check needs, it records last_error, delivers nothing, and the videos stay new", async () => {
    const monitor = await createMonitor();
    await h.server.platform.store.query(sql`update accounts set credits = 0 where id = ${h.server.account.id}`);
    h.publishNewUploads();
    const refused = await checkNow(monitor.id);
    expect(refused.data).toMatchObject({ new_videos: 0, event: null, error: { code: "insufficient_credits" } });
    expect(refused.data.monitor.last_error).toMatchObject({
      code: "insufficient_credits",
      number: 2001,
      at: h.clock.now().toISOString(),
    });
    expect(refused.usage.credits_spent).toBe(0);
    expect(h.receiver.requests).toHaveLength(0);

    await h.server.platform.credits.grant(h.server.account.id, 5, "top-up");
    const paid = await checkNow(monitor.id);
    expect(paid.data.new_videos).toBe(3);
    expect(paid.data.monitor.last_error).toBeNull();
    expect(paid.data.event?.data.videos.map((video) => video.videoId)).toEqual([...newUploads]);
  });

  it("a check that cannot list the channel answers 200 with its error, records it, and charges nothing", async () => {
    const monitor = await createMonitor();
    h.fake.innertube("browse", {}, { status: 500, body: "upstream broke" });
    const failed = await checkNow(monitor.id);
    expect(failed.data).toMatchObject({ new_videos: 0, event: null, error: { code: "upstream_error", number: 5001 } });
    expect(failed.data.monitor.last_error).toMatchObject({ code: "upstream_error", at: h.clock.now().toISOString() });
    expect(failed.usage.credits_spent).toBe(0);
    expect(await ledgerCharges()).toEqual([]);
  });

  it("PATCH clears what is null, keeps what is omitted, and pauses and resumes the schedule", async () => {
    const monitor = await createMonitor({ name: "to clear", interval_minutes: 60 });
    const paused = await h.server.client.PATCH("/monitors/{monitorId}", {
      params: { path: { monitorId: monitor.id } },
      body: { status: "paused", name: null },
    });
    expect(paused.data?.data).toMatchObject({
      status: "paused",
      name: null,
      next_check_at: null,
      interval_minutes: 60,
      webhook_url: h.receiver.url(),
    });
    h.clock.advanceMinutes(30);
    const resumed = await h.server.client.PATCH("/monitors/{monitorId}", {
      params: { path: { monitorId: monitor.id } },
      body: { status: "active", webhook_url: null, interval_minutes: 15 },
    });
    expect(resumed.data?.data).toMatchObject({ status: "active", webhook_url: null, interval_minutes: 15 });
    expect(resumed.data?.data.next_check_at).toBe(new Date(h.clock.now().getTime() + 15 * 60_000).toISOString());
    expect(resumed.data?.data.updated_at).toBe(h.clock.now().toISOString());
  });

  it("a paused monitor is not checked on schedule, but a check on demand runs", async () => {
    const monitor = await createMonitor({ interval_minutes: 15 });
    await h.server.client.PATCH("/monitors/{monitorId}", {
      params: { path: { monitorId: monitor.id } },
      body: { status: "paused" },
    });
    h.publishNewUploads();
    h.clock.advanceMinutes(60);
    await h.scheduler.tick();
    expect(await h.balance()).toBe(50);
    const check = await checkNow(monitor.id);
    expect(check.data.new_videos).toBe(3);
    expect(check.data.monitor.next_check_at).toBeNull();
  });

  it("DELETE removes the monitor and stops its pending deliveries", async () => {
    await h.webhooks.stop();
    const monitor = await createMonitor();
    h.publishNewUploads();
    await checkNow(monitor.id);
    const deleted = await h.server.client.DELETE("/monitors/{monitorId}", {
      params: { path: { monitorId: monitor.id } },
    });
    expect(deleted.data?.data).toEqual({ kind: "monitor_deleted", id: monitor.id });
    const pending = await h.server.platform.store.query<{ n: number }>(
      sql`select count(*)::int as n from webhook_deliveries`,
    );
    expect(pending[0]?.n).toBe(0);
    const gone = await sendRaw(h.server, { method: "GET", path: `/api/v2/monitors/${monitor.id}` });
    expectErrorEnvelope(gone, 404, "not_found");
  });

  it("another account's monitor is 404 on every operation", async () => {
    const monitor = await createMonitor();
    const other = await h.server.platform.accounts.create({ plan: "pro", name: "other" });
    const client = h.server.clientFor(other.key.key);
    const path = { params: { path: { monitorId: monitor.id } } };
    for (const answer of [
      await client.GET("/monitors/{monitorId}", path),
      await client.PATCH("/monitors/{monitorId}", { ...path, body: { name: "mine" } }),
      await client.DELETE("/monitors/{monitorId}", path),
      await client.POST("/monitors/{monitorId}/check", path),
      await client.GET("/monitors/{monitorId}/events", path),
    ]) {
      expect(answer.response.status).toBe(404);
      expect(answer.error?.error.code).toBe("not_found");
    }
    expect((await client.GET("/monitors")).data?.data.monitors).toEqual([]);
  });

  it("refuses a video, another site and an unreachable channel, before any state", async () => {
    const video = await sendRaw(h.server, {
      method: "POST",
      path: "/api/v2/monitors",
      json: { target: "https://www.youtube.com/watch?v=GJLlxj_dtq8" },
    });
    expectErrorEnvelope(video, 422, "endpoint_platform_mismatch");
    expect((video.body as { error: { retry_with?: unknown } }).error.retry_with).toEqual({
      endpoint: "/api/v2/transcripts/video",
    });
    const site = await sendRaw(h.server, {
      method: "POST",
      path: "/api/v2/monitors",
      json: { target: "https://vimeo.com/channels/staffpicks" },
    });
    expectErrorEnvelope(site, 422, "endpoint_platform_mismatch");
    // NewPipe's recording of a channel id YouTube says does not exist.
    h.fake.replayNewpipe("youtubechannelextractor/notavailable/generated_mock_4.json");
    const unknown = await sendRaw(h.server, {
      method: "POST",
      path: "/api/v2/monitors",
      json: { target: "UCAUc4iz6edWerIjlnL8OSSw" },
    });
    expectErrorEnvelope(unknown, 422, "unavailable");
    expect((await h.server.client.GET("/monitors")).data?.data.monitors).toEqual([]);
  });
});

describe("monitor webhook addresses", () => {
  beforeEach(async () => {
    h = await startMonitorHarness({ allowPrivateWebhooks: false, store });
  }, serverStartTimeoutMs);
  afterEach(async () => h.close());

  it("refuses a webhook_url that is not public https with 422 invalid_input, on create and on PATCH", async () => {
    for (const webhookUrl of ["https://10.0.0.5/hook", "http://hooks.example.com/hook", "https://127.0.0.1/hook"]) {
      const refused = await sendRaw(h.server, {
        method: "POST",
        path: "/api/v2/monitors",
        json: { target: channelUrl, webhook_url: webhookUrl },
      });
      expectErrorEnvelope(refused, 422, "invalid_input");
    }
    const monitor = await createMonitor({ webhook_url: null });
    const patched = await sendRaw(h.server, {
      method: "PATCH",
      path: `/api/v2/monitors/${monitor.id}`,
      json: { webhook_url: "https://[::1]/hook" },
    });
    expectErrorEnvelope(patched, 422, "invalid_input");
    expect((await h.server.client.GET("/monitors")).data?.data.monitors).toHaveLength(1);
  });
});
