import { audioFixture } from "@verbatim/testkit/fake-podcast-host";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Store } from "../../src/store/database.ts";
import { JFK_REFERENCE } from "../asr/generated-media.ts";
import { wordErrorRate } from "../asr/word-error-rate.ts";
import { openTestStore } from "../support/store.ts";
import { acceptedSession, type LiveServer, readEvents, sessionWhen, startLiveServer, startSession } from "./harness.ts";
import { type LiveHlsServer, startLiveHlsServer } from "./live-hls.ts";

let store: Store;
let server: LiveServer;
let hls: LiveHlsServer;

beforeAll(async () => {
  store = await openTestStore();
  server = await startLiveServer(store);
  hls = await startLiveHlsServer();
});
afterAll(async () => {
  await server?.close();
  await hls?.close();
  await store?.close();
});

describe("a live HLS stream of jfk.wav, encoded by ffmpeg in real time on loopback", () => {
  it("streams partials, then final segments in order, and ends when the playlist gains #EXT-X-ENDLIST", async () => {
    const { url, done } = await hls.live("jfk", audioFixture("whisper-cpp/jfk.wav"));
    const sessionId = acceptedSession(await startSession(server, { url }));
    const events = await readEvents(server, sessionId, { timeoutMs: 60_000 });
    await done;
    const types = events.map((event) => event.event);
    expect(types[0]).toBe("live.started");
    expect(types.at(-1)).toBe("live.ended");
    const durable = events.filter((event) => event.id !== null);
    expect(durable.map((event) => Number(event.id))).toEqual(durable.map((_, index) => index + 1));
    const firstSegment = types.indexOf("live.segment");
    expect(firstSegment).toBeGreaterThan(0);
    expect(types.slice(0, firstSegment)).toContain("live.partial");
    const text = events
      .filter((event) => event.event === "live.segment")
      .map((event) => event.data.text)
      .join(" ");
    expect(wordErrorRate(JFK_REFERENCE, text), text).toBeLessThanOrEqual(0.1);
    expect(events.at(-1)?.data).toMatchObject({ type: "live.ended", reason: "stream_ended", credits_spent: 1 });
    const session = await sessionWhen(server, sessionId, (found) => found.status === "ended");
    expect(session.end_reason).toBe("stream_ended");
    expect(session.audio_seconds).toBeGreaterThan(10);
    expect(session.library).toEqual({ id: `file:${sessionId}`, replaceable_by_captions: false });
    console.log(JSON.stringify(events.map((e) => [e.id, e.event, e.data.text ?? e.data.reason ?? ""])));
  }, 90_000);
});
