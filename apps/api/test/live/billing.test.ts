import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Store } from "../../src/store/database.ts";
import { send } from "../support/http.ts";
import type { TestServer } from "../support/server.ts";
import { type Receiver, startReceiver } from "../webhooks/receiver.ts";
import {
  acceptedSession,
  expectBatchedAtMostEvery,
  type LiveServer,
  openTwoProcessStores,
  readEvents,
  segmentDeliveryTimes,
  sessionWhen,
  startApiProcess,
  startLiveServer,
  startSession,
  type TwoProcessStores,
} from "./harness.ts";
import { type CutSegment, cutRecording, type LiveHlsServer, speechRecording, startLiveHlsServer } from "./live-hls.ts";

// Minutes of speech released faster than real time (the reader takes segments as the playlist
// lists them, whatever the clock says): 70 s of jfk.wav over and over, cut into 2 s segments.

let stores: TwoProcessStores | undefined;
let store: Store;
let otherStore: Store;
let server: LiveServer;
let hls: LiveHlsServer;
let receiver: Receiver;
let speech: CutSegment[];

beforeAll(async () => {
  stores = await openTwoProcessStores();
  ({ store, otherStore } = stores);
  server = await startLiveServer(store, { webhooks: true });
  hls = await startLiveHlsServer();
  receiver = await startReceiver();
  const recording = await speechRecording(70);
  try {
    speech = await cutRecording(recording.path);
  } finally {
    await recording.remove();
  }
}, 120_000);
afterAll(async () => {
  await server?.close();
  await hls?.close();
  await receiver?.close();
  await stores?.close();
});

/** The charges the ledger holds for the request that started a session. */
async function chargesOf(requestId: string): Promise<number[]> {
  const rows = await store.query<{ delta: number }>(
    sql`select delta::float8 as delta from credit_ledger where request_id = ${requestId} and kind = 'charge' order by id`,
  );
  return rows.map((row) => Number(row.delta));
}

/** Another account of the server's store, with its own key: a client of its own. */
async function client(plan: "free" | "pro", credits: number | null): Promise<TestServer> {
  const { account, key } = await server.platform.accounts.create({ plan, credits, name: `live ${plan}` });
  return { ...server, account, key };
}

async function started(
  as: TestServer,
  name: string,
  body: Record<string, unknown> = {},
  pace: { intervalMs?: number; window?: number; segments?: number } = {},
) {
  const playlist = hls.paced(name, speech.slice(0, pace.segments ?? speech.length), {
    intervalMs: pace.intervalMs ?? 125,
    window: pace.window ?? 80,
  });
  const answer = await startSession(as, { url: playlist.url, ...body });
  return { id: acceptedSession(answer), requestId: (answer.body as { request_id: string }).request_id, playlist };
}

describe("billing by the minute (docs/decisions.md, rule 16)", () => {
  it("charges 1 credit per started minute of audio, each once: 70 s is 2 credits, 2 ledger rows", async () => {
    const account = await client("pro", 1_000);
    const session = await started(account, "exact", { webhook_url: receiver.url("/exact") });
    const ended = await sessionWhen(account, session.id, (found) => found.status === "ended", 90_000);
    expect(ended.end_reason).toBe("stream_ended");
    // The session joins at the live edge: the first segments of the window may be behind it.
    expect(ended.audio_seconds).toBeGreaterThan(62);
    expect(ended.audio_seconds).toBeLessThan(71);
    expect(ended.credits_spent).toBe(Math.ceil(ended.audio_seconds / 60));
    expect(ended.credits_spent).toBe(2);
    expect(await chargesOf(session.requestId)).toEqual([-1, -1]);
    const me = await send(account, { method: "GET", path: "/api/v2/me" });
    expect((me.body as { data: { credits: number } }).data.credits).toBe(998);
    // Segments came faster than every 3 s: their webhooks were batched, several to a delivery.
    const times = await segmentDeliveryTimes(store, session.id);
    expect(times.length).toBeLessThan(ended.segments.length);
    expectBatchedAtMostEvery(times, 3_000);
  }, 120_000);

  it("ends at max_minutes once that much audio is transcribed, charged for it alone", async () => {
    const account = await client("pro", 1_000);
    const session = await started(account, "capped", { max_minutes: 1 });
    const ended = await sessionWhen(account, session.id, (found) => found.status === "ended", 60_000);
    session.playlist.stop();
    expect(ended).toMatchObject({ end_reason: "max_minutes", credits_spent: 1, audio_seconds: 60, max_minutes: 1 });
    expect(await chargesOf(session.requestId)).toEqual([-1]);
    const events = await readEvents(account, session.id, { lastEventId: ended.last_event_seq - 1 });
    expect(events.map((event) => event.data)).toEqual([
      expect.objectContaining({ type: "live.ended", reason: "max_minutes", audio_seconds: 60, credits_spent: 1 }),
    ]);
  }, 90_000);

  it("ends with insufficient_credits when the balance cannot pay the next minute, leaving it at 0", async () => {
    const account = await client("pro", 1);
    const session = await started(account, "broke");
    const ended = await sessionWhen(account, session.id, (found) => found.status === "ended", 60_000);
    session.playlist.stop();
    expect(ended).toMatchObject({ end_reason: "insufficient_credits", credits_spent: 1, audio_seconds: 60 });
    expect(await chargesOf(session.requestId)).toEqual([-1]);
    const me = await send(account, { method: "GET", path: "/api/v2/me" });
    expect((me.body as { data: { credits: number } }).data.credits).toBe(0);
    expect(ended.library).toEqual({ id: `file:${session.id}`, replaceable_by_captions: false });
  }, 90_000);

  it("stops on DELETE: what was heard is charged and in the library, and live.ended says stopped", async () => {
    const account = await client("pro", 1_000);
    const session = await started(account, "stopped", {}, { intervalMs: 1_000 });
    await sessionWhen(account, session.id, (found) => found.segments.length > 0, 60_000);
    const answer = await send(account, { method: "DELETE", path: `/api/v2/live/${session.id}` });
    session.playlist.stop();
    expect(answer.status, answer.text).toBe(200);
    const stopped = (answer.body as { data: Record<string, unknown> }).data;
    expect(stopped).toMatchObject({ status: "stopped", end_reason: "stopped", credits_spent: 1 });
    expect(stopped.library).toEqual({ id: `file:${session.id}`, replaceable_by_captions: false });
    const events = await readEvents(account, session.id);
    expect(events.at(-1)?.data).toMatchObject({ type: "live.ended", reason: "stopped", credits_spent: 1 });
    const again = await send(account, { method: "DELETE", path: `/api/v2/live/${session.id}` });
    expect((again.body as { data: unknown }).data).toEqual(stopped);
    expect(await chargesOf(session.requestId)).toEqual([-1]);
  }, 90_000);
});

describe("the plan's cap on sessions at once", () => {
  it("holds across two API processes asked at the same moment: one 202, one 429 rate_limited", async () => {
    const account = await client("free", 100);
    const other = await startApiProcess(otherStore);
    try {
      const playlist = hls.paced("capped-twice", speech, { intervalMs: 2_000, window: 5 });
      const [first, second] = await Promise.all([
        startSession(account, { url: playlist.url }),
        startSession({ ...account, baseUrl: other.baseUrl }, { url: playlist.url }),
      ]);
      const statuses = [first.status, second.status].sort();
      expect(statuses, `${first.text}\n${second.text}`).toEqual([202, 429]);
      const refused = first.status === 429 ? first : second;
      expect((refused.body as { error: { code: string; number: number } }).error).toMatchObject({
        code: "rate_limited",
        number: 2101,
      });
      expect(refused.headers.get("retry-after")).toBe("30");
      const admitted = first.status === 202 ? first : second;
      const sessionId = acceptedSession(admitted);
      const stopped = await send(account, { method: "DELETE", path: `/api/v2/live/${sessionId}` });
      expect((stopped.body as { data: { status: string } }).data.status).toBe("stopped");
      playlist.stop();
      // Once it has ended, the plan's one session is free again.
      const next = await startSession({ ...account, baseUrl: other.baseUrl }, { url: playlist.url });
      const nextId = acceptedSession(next);
      await send(account, { method: "DELETE", path: `/api/v2/live/${nextId}` });
    } finally {
      await other.close();
    }
  }, 90_000);
});

describe("a worker that dies mid-stream", () => {
  it("leaves the session to another worker, which resumes at the live edge with a gap and charges nothing twice", async () => {
    const account = await client("pro", 1_000);
    // 70 s of speech: the minute after the first is charged by the worker that took over.
    const session = await started(account, "takeover", {}, { intervalMs: 400, window: 8 });
    await sessionWhen(account, session.id, (found) => found.segments.length > 0, 60_000);
    await server.workers?.crash();
    server.startWorkers();
    const ended = await sessionWhen(account, session.id, (found) => found.status === "ended", 120_000);
    const events = await readEvents(account, session.id);
    // A machine loaded by other tests may lose more segments, each reported as a gap of its own.
    const gaps = events.filter((event) => event.event === "live.gap");
    const takeover = gaps.find((event) => event.data.reason === "takeover");
    expect(takeover?.data).toMatchObject({ type: "live.gap", reason: "takeover" });
    for (const gap of gaps) expect(gap.data.to).toBeGreaterThan(gap.data.from);
    const segments = events.filter((event) => event.event === "live.segment");
    const afterGap = segments.filter((event) => Number(event.id) > Number(takeover?.id));
    expect(afterGap.length).toBeGreaterThan(0);
    for (const segment of afterGap) expect(segment.data.start).toBeGreaterThanOrEqual(takeover?.data.to - 0.5);
    expect(ended.end_reason).toBe("stream_ended");
    const charges = await chargesOf(session.requestId);
    expect(charges).toEqual(Array.from({ length: ended.credits_spent }, () => -1));
    expect(ended.credits_spent).toBe(Math.ceil(ended.audio_seconds / 60));
    expect(ended.credits_spent).toBe(2);
  }, 150_000);
});
