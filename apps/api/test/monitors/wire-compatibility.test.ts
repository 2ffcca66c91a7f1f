import { readFileSync } from "node:fs";
import { eventually } from "@verbatim/testkit/eventually";
import { channelUrl } from "@verbatim/testkit/recorded-channel";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serverStartTimeoutMs } from "../support/youtube-server.ts";
import { type MonitorHarness, startMonitorHarness } from "./harness.ts";

/**
 * The hosted service's Node SDK reads monitor answers shaped as its test fixtures are
 * (`test/fixtures/transcriptfetch/monitor-fixtures.json`). Every field a fixture has must be in
 * Verbatim's answer to the same operation, with the same JSON type; a `null` on either side
 * matches any type (the fixture's values are one example), and arrays are compared element by
 * element against the fixture's first element. Extra fields of ours are allowed, as clients
 * ignore what they do not read.
 */
const fixtures = JSON.parse(
  readFileSync(new URL("../fixtures/transcriptfetch/monitor-fixtures.json", import.meta.url), "utf8"),
) as Record<string, unknown>;

/**
 * Fields the hosted service sends that Verbatim deliberately does not: it delivers each new
 * video's transcript as its own `monitor.transcript` event instead of inside `monitor.videos`
 * (the SDK reads `transcripts` as optional).
 */
const deliberatelyAbsent = new Set(["data.event.data.transcripts", "data.events[].data.transcripts"]);

/** Where our answer lacks a field of the fixture or holds another type there. */
function shapeMismatches(fixture: unknown, ours: unknown, path = ""): string[] {
  if (fixture === null || ours === null) return [];
  if (Array.isArray(fixture)) {
    if (!Array.isArray(ours)) return [`${path}: array expected, got ${typeOf(ours)}`];
    const example = fixture[0];
    return example === undefined ? [] : ours.flatMap((item) => shapeMismatches(example, item, `${path}[]`));
  }
  if (typeof fixture === "object") {
    if (typeof ours !== "object" || Array.isArray(ours)) return [`${path}: object expected, got ${typeOf(ours)}`];
    return Object.entries(fixture as Record<string, unknown>).flatMap(([key, value]) => {
      const at = path ? `${path}.${key}` : key;
      if (deliberatelyAbsent.has(at)) return [];
      if (!(key in (ours as Record<string, unknown>))) return [`${at}: missing`];
      return shapeMismatches(value, (ours as Record<string, unknown>)[key], at);
    });
  }
  return typeOf(fixture) === typeOf(ours) ? [] : [`${path}: ${typeOf(fixture)} expected, got ${typeOf(ours)}`];
}

function typeOf(value: unknown): string {
  return Array.isArray(value) ? "array" : value === null ? "null" : typeof value;
}

interface EventPage {
  data: { events: Array<{ type: string; delivery: { status: string } }> };
}

let h: MonitorHarness;
const answers: Record<string, unknown> = {};

async function call(method: string, path: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`${h.server.baseUrl}/api/v2${path}`, {
    method,
    headers: { authorization: `Bearer ${h.server.key.key}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return response.json();
}

describe("monitor answers have the shapes of the hosted service's SDK fixtures", () => {
  beforeAll(async () => {
    h = await startMonitorHarness({ credits: 100 });
    answers.createMonitor = await call("POST", "/monitors", {
      target: channelUrl,
      type: "channel",
      platform: "youtube",
      tab: "videos",
      interval_minutes: 60,
      transcripts: true,
      webhook_url: h.receiver.url(),
      name: "cc uploads",
    });
    const id = (answers.createMonitor as { data: { id: string } }).data.id;
    h.publishNewUploads();
    answers.checkMonitor = await call("POST", `/monitors/${id}/check`);
    await eventually(() => h.receiver.requests.length >= 4);
    const events = await eventually(async () => {
      const page = (await call("GET", `/monitors/${id}/events?limit=10`)) as EventPage;
      return page.data.events.every((event) => event.delivery.status === "delivered") ? page : null;
    });
    // The fixture's example event is a monitor.videos event: compare those, as a monitor.transcript has another shape.
    answers.listMonitorEvents = {
      ...events,
      data: { ...events.data, events: events.data.events.filter((event) => event.type === "monitor.videos") },
    };
    answers.listMonitors = await call("GET", "/monitors");
    answers.getMonitor = await call("GET", `/monitors/${id}`);
    answers.updateMonitor = await call("PATCH", `/monitors/${id}`, { status: "paused" });
    answers.deleteMonitor = await call("DELETE", `/monitors/${id}`);
  }, serverStartTimeoutMs);
  afterAll(async () => h.close());

  it.each(Object.keys(fixtures))("%s", (operation) => {
    expect(answers[operation], `no answer recorded for ${operation}`).toBeDefined();
    expect(shapeMismatches(fixtures[operation], answers[operation])).toEqual([]);
  });

  it("tells a shape apart: a missing field or another type is a mismatch", () => {
    expect(shapeMismatches({ a: { b: 1 } }, { a: {} })).toEqual(["a.b: missing"]);
    expect(shapeMismatches({ a: [{ b: "x" }] }, { a: [{ b: 2 }] })).toEqual(["a[].b: string expected, got number"]);
    expect(shapeMismatches({ a: null }, { a: { b: 1 } })).toEqual([]);
  });
});
