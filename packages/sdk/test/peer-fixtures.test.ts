import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { Verbatim } from "../src/index.ts";
import { type Fault, FaultServer } from "./support/fault-server.ts";

/** The hosted service's Monitors answers, as its own Node SDK's tests hold them (see fixtures/transcriptfetch/SOURCE.md). */
const peerAnswers = JSON.parse(
  readFileSync(new URL("./fixtures/transcriptfetch/monitor-fixtures.json", import.meta.url), "utf8"),
) as Record<string, { ok: true; request_id: string; data: Record<string, unknown> }>;

let server: FaultServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A client of a server that answers `operation`'s recorded envelope to every request. */
async function clientAnswering(operation: string, status = 200) {
  const envelope = peerAnswers[operation];
  if (!envelope) throw new Error(`no recorded answer for ${operation}`);
  const answer: Fault = { status, headers: { "x-request-id": "req_peer" }, body: envelope };
  server = await FaultServer.start([answer]);
  return { verbatim: new Verbatim({ apiKey: "vb_live_test", baseUrl: server.baseUrl, maxRetries: 0 }), envelope };
}

describe("the SDK reads the hosted service's Monitors answers", () => {
  it("create, get, update and check answer the recorded monitor", async () => {
    const calls: [string, number, (verbatim: Verbatim) => Promise<{ data: unknown; requestId: string }>][] = [
      ["createMonitor", 201, (verbatim) => verbatim.monitors.create({ target: "@lexfridman" })],
      ["getMonitor", 200, (verbatim) => verbatim.monitors.get("mon_m3k1x9qz4vb2p7")],
      ["updateMonitor", 200, (verbatim) => verbatim.monitors.update("mon_m3k1x9qz4vb2p7", { status: "paused" })],
      ["checkMonitor", 200, (verbatim) => verbatim.monitors.check("mon_m3k1x9qz4vb2p7")],
      ["deleteMonitor", 200, (verbatim) => verbatim.monitors.delete("mon_m3k1x9qz4vb2p7")],
    ];
    for (const [operation, status, call] of calls) {
      const { verbatim, envelope } = await clientAnswering(operation, status);
      const result = await call(verbatim);
      expect(result.data, operation).toEqual(envelope.data);
      expect(result.requestId).toBe("req_peer");
      await server?.close();
      server = undefined;
    }
  });

  it("list answers the recorded monitors and their has_new", async () => {
    const { verbatim, envelope } = await clientAnswering("listMonitors");
    const listed = await verbatim.monitors.list();
    expect(listed.data).toEqual(envelope.data);
    expect(listed.data.monitors.map((monitor) => monitor.id)).toEqual(["mon_m3k1x9qz4vb2p7"]);
  });

  it("events answer the recorded page, and allEvents follows its next_cursor", async () => {
    const { verbatim, envelope } = await clientAnswering("listMonitorEvents");
    const page = await verbatim.monitors.events("mon_m3k1x9qz4vb2p7");
    expect(page.data).toEqual(envelope.data);
    const cursor = page.data.next_cursor;
    expect(cursor).toBe("eyJ0IjoiNDIifQ");

    const events = await verbatim.monitors.allEvents("mon_m3k1x9qz4vb2p7").toArray(2);
    expect(events).toHaveLength(2);
    // One request for `events`, then the recorded page (one event) and the page its cursor names.
    expect(server?.requests).toHaveLength(3);
    expect(server?.requests.at(-1)?.path).toBe(`/api/v2/monitors/mon_m3k1x9qz4vb2p7/events?cursor=${cursor}`);
  });
});
