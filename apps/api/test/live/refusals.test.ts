import { readFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { eventually } from "@verbatim/testkit/eventually";
import { audioFixture } from "@verbatim/testkit/fake-podcast-host";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Store } from "../../src/store/database.ts";
import { JFK_REFERENCE } from "../asr/generated-media.ts";
import { wordErrorRate } from "../asr/word-error-rate.ts";
import { type Answer, send } from "../support/http.ts";
import { openTestStore } from "../support/store.ts";
import { acceptedSession, type LiveServer, readEvents, sessionWhen, startLiveServer, startSession } from "./harness.ts";
import { type CutSegment, cutRecording, type LiveHlsServer, startLiveHlsServer } from "./live-hls.ts";

let store: Store;
/** Reads loopback streams (private targets allowed), runs no worker: sessions stay as admitted. */
let idle: LiveServer;
/** As an operator runs it by default: private, loopback and link-local addresses refused. */
let strict: LiveServer;
let hls: LiveHlsServer;
let jfk: CutSegment[];
let radio: Server;
let radioUrl: string;

beforeAll(async () => {
  store = await openTestStore();
  idle = await startLiveServer(store, { workers: false });
  strict = await startLiveServer(store, { workers: false, allowPrivateTargets: false });
  hls = await startLiveHlsServer();
  jfk = await cutRecording(audioFixture("whisper-cpp/jfk.wav"));
  const mp3 = await readFile(audioFixture("whisper-cpp/jfk.mp3"));
  // A radio server: an audio/mpeg body sent at once and ended, then off the air. The session's
  // admission and its worker each look at the stream (two requests) before the worker listens.
  let listeners = 0;
  radio = createServer((_req, res) => {
    listeners += 1;
    if (listeners > 3) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": "audio/mpeg", "icy-name": "Verbatim Tests FM" });
    res.end(mp3);
  });
  await new Promise<void>((resolve) => radio.listen(0, "127.0.0.1", resolve));
  radioUrl = `http://127.0.0.1:${(radio.address() as AddressInfo).port}/stream`;
}, 120_000);
afterAll(async () => {
  await Promise.all([idle?.close(), strict?.close()]);
  await hls?.close();
  await new Promise((resolve) => radio?.close(resolve));
  await store?.close();
});

function expectError(answer: Answer, status: number, code: string, number: number) {
  expect(answer.status, answer.text).toBe(status);
  const body = answer.body as { ok: boolean; error: Record<string, unknown> };
  expect(body.ok).toBe(false);
  expect(body.error).toMatchObject({ code, number });
  return body.error;
}

describe("422: a stream the server does not read", () => {
  it("refuses a playlist at a loopback address unless private targets are allowed, charging nothing", async () => {
    const playlist = hls.paced("private", jfk, { endList: false });
    const error = expectError(await startSession(strict, { url: playlist.url }), 422, "invalid_input", 3005);
    expect(error.message).toMatch(/loopback.*VERBATIM_ALLOW_PRIVATE_TARGETS=1/);
    const listed = await send(strict, { method: "GET", path: "/api/v2/live" });
    expect((listed.body as { data: { sessions: unknown[] } }).data.sessions).toEqual([]);
    playlist.stop();
  });

  it("refuses a webhook_url at a private address unless private targets are allowed", async () => {
    const error = expectError(
      await startSession(strict, { url: "https://radio.example.org/live.m3u8", webhook_url: "http://10.0.0.5/hook" }),
      422,
      "invalid_input",
      3005,
    );
    expect(error.message).toMatch(/^webhook_url must be an https URL/);
  });

  it("refuses a finished playlist (#EXT-X-ENDLIST) as a recording, naming the video endpoint", async () => {
    const finished = hls.paced("finished", jfk, { initial: jfk.length });
    const error = expectError(await startSession(idle, { url: finished.url }), 422, "invalid_input", 3005);
    expect(error).toMatchObject({ retry_with: { endpoint: "/api/v2/transcripts/video" } });
    expect(error.message).toMatch(/#EXT-X-ENDLIST/);
  });

  it("refuses a page that is neither a playlist nor a radio stream", async () => {
    const error = expectError(
      await startSession(idle, { url: `${hls.origin}/nothing/here.html` }),
      422,
      "unavailable",
      4002,
    );
    expect(error.message).toMatch(/answered 404/);
  });
});

describe("400, 402, 404: requests refused before any stream is read", () => {
  it("refuses max_minutes above the plan's as invalid_request at /body/max_minutes", async () => {
    const error = expectError(
      await startSession(idle, { url: "https://radio.example.org/live.m3u8", max_minutes: 481 }),
      400,
      "invalid_request",
      1001,
    );
    expect(error.issues).toEqual([{ path: "/body/max_minutes", message: "must be <= 480" }]);
  });

  it("refuses an account without a credit as insufficient_credits (2001)", async () => {
    const { key } = await idle.platform.accounts.create({ plan: "pro", credits: 0, name: "broke" });
    expectError(
      await startSession(idle, { url: "https://radio.example.org/live.m3u8" }, key.key),
      402,
      "insufficient_credits",
      2001,
    );
  });

  it("answers 404 for an unknown session, and for another account's, on every operation", async () => {
    const playlist = hls.paced("theirs", jfk, { endList: false });
    const theirs = acceptedSession(await startSession(idle, { url: playlist.url }));
    const other = await idle.platform.accounts.create({ plan: "pro", name: "other" });
    const headers = { authorization: `Bearer ${other.key.key}` };
    for (const id of [theirs, "live_01JD7XT4C6E8G0J2K4N6Q8S0V2"]) {
      for (const [method, path] of [
        ["GET", `/api/v2/live/${id}`],
        ["GET", `/api/v2/live/${id}/events`],
        ["DELETE", `/api/v2/live/${id}`],
      ] as const) {
        expectError(await send(idle, { method, path, headers }), 404, "not_found", 1301);
      }
    }
    await send(idle, { method: "DELETE", path: `/api/v2/live/${theirs}` });
    playlist.stop();
  });

  it("refuses a Last-Event-ID that is no event number as invalid_request", async () => {
    const error = expectError(
      await send(idle, {
        method: "GET",
        path: "/api/v2/live/live_01JD7XT4C6E8G0J2K4N6Q8S0V2/events",
        headers: { "last-event-id": "abc" },
      }),
      400,
      "invalid_request",
      1001,
    );
    expect(error.issues).toEqual([expect.objectContaining({ path: "/headers/last-event-id" })]);
  });
});

describe("sessions no worker runs", () => {
  it("replays the 202 of a POST /live sent again with its Idempotency-Key, starting one session", async () => {
    const { key } = await idle.platform.accounts.create({ plan: "pro", name: "retrier" });
    const playlist = hls.paced("idempotent", jfk, { endList: false });
    const headers = { authorization: `Bearer ${key.key}`, "idempotency-key": "live-retry-1" };
    const first = await send(idle, { method: "POST", path: "/api/v2/live", json: { url: playlist.url }, headers });
    const again = await send(idle, { method: "POST", path: "/api/v2/live", json: { url: playlist.url }, headers });
    expect(acceptedSession(again)).toBe(acceptedSession(first));
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    const listed = await send(idle, {
      method: "GET",
      path: "/api/v2/live",
      headers: { authorization: headers.authorization },
    });
    expect((listed.body as { data: { sessions: unknown[] } }).data.sessions).toHaveLength(1);
    await send(idle, { method: "DELETE", path: `/api/v2/live/${acceptedSession(first)}`, headers });
    playlist.stop();
  });

  it("are listed newest first, paged by a signed cursor, filtered by status, with the plan's limits", async () => {
    const { key } = await idle.platform.accounts.create({ plan: "pro", name: "lister" });
    const headers = { authorization: `Bearer ${key.key}` };
    const playlist = hls.paced("listed", jfk, { endList: false });
    const ids: string[] = [];
    for (let index = 0; index < 3; index++)
      ids.push(acceptedSession(await startSession(idle, { url: playlist.url }, key.key)));
    const first = await send(idle, { method: "GET", path: "/api/v2/live?limit=2", headers });
    const page = (first.body as { data: { sessions: Array<{ id: string }>; next_cursor: string; limits: unknown } })
      .data;
    expect(page.sessions.map((session) => session.id)).toEqual([ids[2], ids[1]]);
    expect(page.limits).toEqual({ max_sessions: 3, max_minutes: 480 });
    const second = await send(idle, {
      method: "GET",
      path: `/api/v2/live?limit=2&cursor=${encodeURIComponent(page.next_cursor)}`,
      headers,
    });
    expect((second.body as { data: { sessions: Array<{ id: string }>; next_cursor: null } }).data).toMatchObject({
      sessions: [{ id: ids[0] }],
      next_cursor: null,
    });
    const stopped = await send(idle, { method: "DELETE", path: `/api/v2/live/${ids[0]}`, headers });
    // No worker held it: the API process ended it itself, with nothing heard, nothing charged, nothing in the library.
    expect((stopped.body as { data: unknown }).data).toMatchObject({
      status: "stopped",
      end_reason: "stopped",
      credits_spent: 0,
      library: null,
    });
    const live = await send(idle, { method: "GET", path: "/api/v2/live?status=live", headers });
    expect(
      (live.body as { data: { sessions: Array<{ id: string }> } }).data.sessions.map((session) => session.id),
    ).toEqual([ids[2], ids[1]]);
    for (const id of ids.slice(1)) await send(idle, { method: "DELETE", path: `/api/v2/live/${id}`, headers });
    playlist.stop();
  });
});

describe("streams without a playlist's end", () => {
  // Its workers run every session of the store: it starts once the sessions above are done with.
  let running: LiveServer;
  beforeAll(async () => {
    running = await startLiveServer(store, { silenceMs: 1_500 });
  });
  afterAll(() => running?.close());

  it("reads an Icecast radio stream and ends when the station goes off the air", async () => {
    const sessionId = acceptedSession(await startSession(running, { url: radioUrl }));
    const events = await readEvents(running, sessionId);
    expect(events[0]?.data.source).toMatchObject({ reading: "icecast", platform: "file" });
    expect(events.at(-1)?.data).toMatchObject({ type: "live.ended", reason: "stream_ended" });
    const text = events
      .filter((event) => event.event === "live.segment")
      .map((event) => event.data.text)
      .join(" ");
    expect(wordErrorRate(JFK_REFERENCE, text), text).toBeLessThanOrEqual(0.1);
  });

  it("fails a session whose stream is no media with live.failed, charging nothing", async () => {
    const garbage = { bytes: Buffer.from("<html>not media</html>".repeat(400)), duration: 2 };
    const broken = hls.paced("broken", [garbage, garbage, garbage], { intervalMs: 200 });
    const sessionId = acceptedSession(await startSession(running, { url: broken.url }));
    const events = await readEvents(running, sessionId);
    expect(events.at(-1)?.data).toMatchObject({
      type: "live.failed",
      error: { code: "invalid_input", number: 3005 },
    });
    const failed = await sessionWhen(running, sessionId, (session) => session.status === "failed");
    expect(failed.error).toMatchObject({
      code: "invalid_input",
      docs: expect.stringMatching(/\/docs\/errors\/invalid_input$/),
    });
    expect(failed.credits_spent).toBe(0);
    expect(failed.library).toBeNull();
  });

  it("reads to its end a playlist that finished between its admission and its worker", async () => {
    const quick = hls.paced("quick", jfk, { intervalMs: 50 });
    const sessionId = acceptedSession(await startSession(running, { url: quick.url }));
    const ended = await sessionWhen(running, sessionId, (session) => session.status !== "live", 30_000);
    expect(ended).toMatchObject({ status: "ended", end_reason: "stream_ended", credits_spent: 1 });
    expect(ended.segments.length).toBeGreaterThan(0);
  });

  it("ends a playlist that stops growing after the silence the server allows", async () => {
    const silent = hls.paced("silent", jfk.slice(0, 3), { intervalMs: 200, endList: false });
    const sessionId = acceptedSession(await startSession(running, { url: silent.url }));
    const ended = await sessionWhen(running, sessionId, (session) => session.status === "ended", 30_000);
    expect(ended.end_reason).toBe("stream_ended");
    expect(ended.audio_seconds).toBeGreaterThan(4);
  });
});

describe("event streams an account holds open", () => {
  it("are 16 at most on one server: one more is 429 rate_limited until a reader leaves, and other accounts are not counted", async () => {
    const { key } = await idle.platform.accounts.create({ plan: "pro", name: "many readers" });
    const headers = { authorization: `Bearer ${key.key}` };
    const playlist = hls.paced("readers", jfk, { endList: false });
    const sessionId = acceptedSession(
      await send(idle, { method: "POST", path: "/api/v2/live", json: { url: playlist.url }, headers }),
    );
    const eventsUrl = `${idle.baseUrl}/api/v2/live/${sessionId}/events`;
    const readers = Array.from({ length: 16 }, () => new AbortController());
    try {
      const opened = await Promise.all(readers.map((reader) => fetch(eventsUrl, { headers, signal: reader.signal })));
      expect(opened.map((response) => response.status)).toEqual(readers.map(() => 200));

      const refused = await send(idle, { method: "GET", path: `/api/v2/live/${sessionId}/events`, headers });
      expect(expectError(refused, 429, "rate_limited", 2101).message).toMatch(/holds 16 live event streams open/);
      expect(refused.headers.get("retry-after")).toBe("5");

      const other = await idle.platform.accounts.create({ plan: "pro", name: "a reader elsewhere" });
      const otherHeaders = { authorization: `Bearer ${other.key.key}` };
      const ownSession = acceptedSession(
        await send(idle, { method: "POST", path: "/api/v2/live", json: { url: playlist.url }, headers: otherHeaders }),
      );
      const otherReader = new AbortController();
      const elsewhere = await fetch(`${idle.baseUrl}/api/v2/live/${ownSession}/events`, {
        headers: otherHeaders,
        signal: otherReader.signal,
      });
      expect(elsewhere.status).toBe(200);
      otherReader.abort();
      await send(idle, { method: "DELETE", path: `/api/v2/live/${ownSession}`, headers: otherHeaders });

      readers[0]?.abort();
      const reopened = new AbortController();
      readers.push(reopened);
      const status = await eventually(async () => {
        const response = await fetch(eventsUrl, { headers, signal: reopened.signal });
        if (response.status === 200) return 200;
        await response.body?.cancel();
        return undefined;
      });
      expect(status).toBe(200);
    } finally {
      for (const reader of readers) reader.abort();
      await send(idle, { method: "DELETE", path: `/api/v2/live/${sessionId}`, headers });
      playlist.stop();
    }
  });
});
