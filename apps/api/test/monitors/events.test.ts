import { channelUrl } from "@verbatim/testkit/recorded-channel";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectErrorEnvelope, send } from "../support/http.ts";
import { serverStartTimeoutMs } from "../support/youtube-server.ts";
import { createdMonitor, type MonitorHarness, startMonitorHarness } from "./harness.ts";

let h: MonitorHarness;
let monitorId: string;
let otherMonitorId: string;
/** Every event of the monitor, newest first, as the first full listing returned them. */
let allEvents: string[];

async function eventsPage(query: { limit?: number; cursor?: string; since?: string }, id = monitorId) {
  const { data, error, response } = await h.server.client.GET("/monitors/{monitorId}/events", {
    params: { path: { monitorId: id }, query },
  });
  if (!data) throw new Error(`events: ${response.status} ${JSON.stringify(error)}`);
  return data.data;
}

describe("a monitor's events", () => {
  beforeAll(async () => {
    h = await startMonitorHarness({ credits: 100 });
    monitorId = createdMonitor(
      await h.server.client.POST("/monitors", { body: { target: channelUrl, transcripts: true, webhook_url: null } }),
    ).id;
    otherMonitorId = createdMonitor(await h.server.client.POST("/monitors", { body: { target: channelUrl } })).id;
    h.publishNewUploads();
    await h.server.client.POST("/monitors/{monitorId}/check", { params: { path: { monitorId } } });
    allEvents = (await eventsPage({ limit: 100 })).events.map((event) => event.id);
  }, serverStartTimeoutMs);
  afterAll(async () => h.close());

  it("lists the check's four events newest first, each with delivery none when the monitor has no webhook", async () => {
    const page = await eventsPage({ limit: 100 });
    expect(page.kind).toBe("monitor_event_list");
    expect(page.monitor_id).toBe(monitorId);
    expect(page.next_cursor).toBeNull();
    expect(allEvents).toHaveLength(4);
    expect([...allEvents].sort().reverse()).toEqual(allEvents);
    for (const event of page.events) {
      expect(event.delivery).toEqual({
        status: "none",
        attempts: 0,
        last_attempt_at: null,
        next_attempt_at: null,
        last_error: null,
        delivered_at: null,
      });
    }
  });

  it("pages with signed cursors: every event once, in order, and no cursor after the last page", async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await eventsPage({ limit: 3, ...(cursor ? { cursor } : {}) });
      seen.push(...page.events.map((event) => event.id));
      cursor = page.next_cursor ?? undefined;
      pages += 1;
    } while (cursor);
    expect(seen).toEqual(allEvents);
    expect(pages).toBe(2);
  });

  it("`since` keeps only newer events, and has_new says whether there are any", async () => {
    const oldest = allEvents.at(-1) ?? "";
    const newest = allEvents[0] ?? "";
    expect((await eventsPage({ since: oldest })).events.map((event) => event.id)).toEqual(allEvents.slice(0, -1));
    expect((await eventsPage({ since: newest })).events).toEqual([]);

    const seenAll = await h.server.client.GET("/monitors/{monitorId}", {
      params: { path: { monitorId }, query: { since: newest } },
    });
    expect(seenAll.data?.data).toMatchObject({ has_new: false, last_event_id: newest });
    const behind = await h.server.client.GET("/monitors/{monitorId}", {
      params: { path: { monitorId }, query: { since: oldest } },
    });
    expect(behind.data?.data.has_new).toBe(true);
    const list = await h.server.client.GET("/monitors", { params: { query: { since: newest } } });
    expect(list.data?.data).toMatchObject({ has_new: false, last_event_id: newest });
    const unseen = await h.server.client.GET("/monitors");
    expect(unseen.data?.data.has_new).toBe(true);
    expect(unseen.data?.data.monitors.find((monitor) => monitor.id === otherMonitorId)?.has_new).toBe(false);
  });

  it("refuses a malformed, altered, foreign or expired cursor with 400 invalid_cursor", async () => {
    const cursor = (await eventsPage({ limit: 1 })).next_cursor ?? "";
    const path = (value: string, id = monitorId) =>
      `/api/v2/monitors/${id}/events?limit=1&cursor=${encodeURIComponent(value)}`;
    const tampered = `${cursor.slice(0, -2)}${cursor.endsWith("AA") ? "BB" : "AA"}`;
    for (const bad of ["not-a-cursor", tampered]) {
      expectErrorEnvelope(await send(h.server, { method: "GET", path: path(bad) }), 400, "invalid_cursor");
    }
    const foreign = await send(h.server, { method: "GET", path: path(cursor, otherMonitorId) });
    expectErrorEnvelope(foreign, 400, "invalid_cursor");
    h.clock.advanceMinutes(24 * 60 + 1);
    try {
      expectErrorEnvelope(await send(h.server, { method: "GET", path: path(cursor) }), 400, "invalid_cursor");
    } finally {
      h.clock.advanceMinutes(-(24 * 60 + 1));
    }
  });
});
