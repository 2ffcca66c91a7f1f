import { audioFixture } from "@verbatim/testkit/fake-podcast-host";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Store } from "../../src/store/database.ts";
import { JFK_REFERENCE } from "../asr/generated-media.ts";
import { wordErrorRate } from "../asr/word-error-rate.ts";
import { send } from "../support/http.ts";
import { type Receiver, startReceiver } from "../webhooks/receiver.ts";
import {
  acceptedSession,
  expectBatchedAtMostEvery,
  type LiveServer,
  openTwoProcessStores,
  type ReadEvent,
  readEvents,
  segmentDeliveryTimes,
  sessionWhen,
  startApiProcess,
  startLiveServer,
  startSession,
  type TwoProcessStores,
} from "./harness.ts";
import { type LiveHlsServer, startLiveHlsServer } from "./live-hls.ts";

// One live run of jfk.wav, encoded by ffmpeg in real time, read at once by every client these tests
// need: a client from the start, one that drops and resumes, one on another API process, and a
// webhook receiver. The recording lasts 11 s; the assertions read what the run left.

let stores: TwoProcessStores | undefined;
let store: Store;
let otherStore: Store;
let server: LiveServer;
let hls: LiveHlsServer;
let receiver: Receiver;
let sessionId: string;
let fromStart: ReadEvent[];
let resumed: { before: ReadEvent[]; after: ReadEvent[] };
let elsewhere: ReadEvent[];

beforeAll(async () => {
  stores = await openTwoProcessStores();
  ({ store, otherStore } = stores);
  server = await startLiveServer(store, { webhooks: true });
  const otherProcess = await startApiProcess(otherStore);
  hls = await startLiveHlsServer();
  receiver = await startReceiver();
  try {
    const { url, done } = await hls.live("jfk", audioFixture("whisper-cpp/jfk.wav"));
    sessionId = acceptedSession(await startSession(server, { url, webhook_url: receiver.url("/live") }));
    const other = { ...server, baseUrl: otherProcess.baseUrl };
    [fromStart, resumed, elsewhere] = await Promise.all([
      readEvents(server, sessionId),
      (async () => {
        // Drops the connection once the first segment came, and comes back with Last-Event-ID.
        const before = await readEvents(server, sessionId, { until: (event) => event.event === "live.segment" });
        const last = before.filter((event) => event.id !== null).at(-1);
        const after = await readEvents(server, sessionId, { lastEventId: Number(last?.id) });
        return { before, after };
      })(),
      readEvents(other, sessionId),
    ]);
    await done;
  } finally {
    await otherProcess.close();
  }
}, 120_000);
afterAll(async () => {
  await server?.close();
  await hls?.close();
  await receiver?.close();
  await stores?.close();
});

const durable = (events: ReadEvent[]) => events.filter((event) => event.id !== null);
const spoken = (events: ReadEvent[]) =>
  events
    .filter((event) => event.event === "live.segment")
    .map((event) => event.data.text)
    .join(" ");

describe("a live HLS stream of jfk.wav, encoded by ffmpeg in real time on loopback", () => {
  it("streams live.started, partials before the first segment, final segments in order, then live.ended", () => {
    const types = fromStart.map((event) => event.event);
    expect(types[0]).toBe("live.started");
    expect(types.at(-1)).toBe("live.ended");
    expect(durable(fromStart).map((event) => Number(event.id))).toEqual(
      durable(fromStart).map((_, index) => index + 1),
    );
    const firstSegment = types.indexOf("live.segment");
    expect(types.slice(0, firstSegment)).toContain("live.partial");
    for (const event of fromStart) expect(event.data.session_id).toBe(sessionId);
    for (const event of durable(fromStart)) expect(event.data.seq).toBe(Number(event.id));
  });

  it("recognises jfk's words with a WER of at most 10 %, each segment with its timed words", () => {
    const text = spoken(fromStart);
    expect(wordErrorRate(JFK_REFERENCE, text), text).toBeLessThanOrEqual(0.1);
    for (const segment of fromStart.filter((event) => event.event === "live.segment")) {
      expect(segment.data.words.map((word: { text: string }) => word.text).join(" ")).toBe(segment.data.text);
      expect(segment.data.words[0].start).toBeGreaterThanOrEqual(segment.data.start);
    }
  });

  it("ends with stream_ended when the playlist gains #EXT-X-ENDLIST, charging 1 credit for its 11 s", async () => {
    expect(fromStart.at(-1)?.data).toMatchObject({ type: "live.ended", reason: "stream_ended", credits_spent: 1 });
    const session = await sessionWhen(server, sessionId, (found) => found.status === "ended");
    expect(session).toMatchObject({ end_reason: "stream_ended", credits_spent: 1, error: null });
    expect(session.audio_seconds).toBeGreaterThan(10);
    expect(session.audio_seconds).toBeLessThan(12);
  });

  it("resumes a dropped client after its Last-Event-ID: nothing missed, nothing twice", () => {
    const ids = [...durable(resumed.before), ...durable(resumed.after)].map((event) => event.id);
    expect(ids).toEqual(durable(fromStart).map((event) => event.id));
    expect(resumed.after.at(-1)?.event).toBe("live.ended");
  });

  it("serves the same events from another API process, which runs no worker", () => {
    expect(durable(elsewhere).map((event) => event.data)).toEqual(durable(fromStart).map((event) => event.data));
  });

  it("replays every durable event after a Last-Event-ID from the store once the session is over", async () => {
    const replay = await readEvents(server, sessionId, { lastEventId: 1 });
    expect(replay.map((event) => event.id)).toEqual(
      durable(fromStart)
        .slice(1)
        .map((event) => event.id),
    );
  });

  it("pages its final segments with after and limit", async () => {
    const first = await send(server, { method: "GET", path: `/api/v2/live/${sessionId}?after=0&limit=1` });
    expect(first.status, first.text).toBe(200);
    const page = (first.body as { data: { segments: Array<{ seq: number }>; next_after: number } }).data;
    expect(page.segments).toHaveLength(1);
    expect(page.next_after).toBe(page.segments[0]?.seq);
    const rest = await send(server, { method: "GET", path: `/api/v2/live/${sessionId}?after=${page.next_after}` });
    const segments = fromStart.filter((event) => event.event === "live.segment").map((event) => Number(event.id));
    expect(
      (rest.body as { data: { segments: Array<{ seq: number }> } }).data.segments.map((segment) => segment.seq),
    ).toEqual(segments.slice(1));
  });

  it("puts the transcript in the library, searchable, with links to its moments", async () => {
    const entry = await send(server, { method: "GET", path: `/api/v2/library/file:${sessionId}?format=text` });
    expect(entry.status, entry.text).toBe(200);
    const hits = await send(server, {
      method: "POST",
      path: "/api/v2/library/search",
      json: { query: "country" },
    });
    expect(hits.status, hits.text).toBe(200);
    const [hit] = (hits.body as { data: { hits: Array<{ id: string; snippets: Array<{ url: string }> }> } }).data.hits;
    expect(hit?.id).toBe(`file:${sessionId}`);
    expect(hit?.snippets[0]?.url).toMatch(/index\.m3u8#t=\d+$/);
  });

  it("delivers signed webhooks: live.started, every segment batched at most every 3 s, and live.ended", async () => {
    const secret = await server.platform.accounts.webhookSecret(server.account.id);
    const deadline = Date.now() + 10_000;
    while (!receiver.requests.some((request) => request.body.includes('"live.ended"')) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const bodies = receiver.requests.map((request) => {
      const headers = Object.fromEntries(
        Object.entries(request.headers).flatMap(([name, value]) => (typeof value === "string" ? [[name, value]] : [])),
      );
      return { event: new Webhook(secret).verify(request.body, headers) as Record<string, unknown> };
    });
    // Deliveries may arrive in any order (a retry reorders them): each event carries its seq.
    const types = bodies.map((body) => body.event.type);
    expect(types.filter((type) => type === "live.started")).toHaveLength(1);
    expect(types.filter((type) => type === "live.ended")).toHaveLength(1);
    const segments = bodies
      .filter((body) => body.event.type === "live.segments")
      .flatMap((batch) => batch.event.segments as Array<{ seq: number; text: string }>)
      .sort((a, b) => a.seq - b.seq);
    expect(segments.map((segment) => segment.text).join(" ")).toBe(spoken(fromStart));
    const ended = bodies.find((body) => body.event.type === "live.ended")?.event;
    expect(ended).toEqual(fromStart.at(-1)?.data);
    expect(Number(ended?.seq)).toBeGreaterThan(segments.at(-1)?.seq ?? 0);
    expectBatchedAtMostEvery(await segmentDeliveryTimes(store, sessionId), 3_000);
  });
});
