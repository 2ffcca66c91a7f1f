import { ConnectionError, type VerbatimOptions } from "@verbatim/sdk";
import { type ProxiedRequest, type RecordingProxy, startRecordingProxy } from "@verbatim/testkit/recording-proxy";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ledgerOf } from "../platform/helpers.ts";
import { sdkFor } from "../support/sdk.ts";
import { serverStartTimeoutMs, startYoutubeServer, type YoutubeTestServer } from "../support/youtube-server.ts";

// A proxy between the SDK and the live server lets the server do the work and answer, then cuts
// the SDK's connection before a byte of that answer arrives: the SDK cannot know whether it was
// charged. Its retry must carry the same Idempotency-Key, so the server replays the stored answer
// instead of doing (and charging) the work again.

const surfaceGo = "GJLlxj_dtq8";
const russianCivilWar = "F1xioXWb8CY";
const takenDown = "authoredNW1";

let yt: YoutubeTestServer;
const proxies: RecordingProxy[] = [];

beforeAll(async () => {
  yt = await startYoutubeServer({ credits: 1000 });
  yt.fake.serveRecordedVideos();
}, serverStartTimeoutMs);
afterEach(async () => {
  await Promise.all(proxies.splice(0).map((proxy) => proxy.close()));
});
afterAll(() => yt?.close());

/** A proxy that drops the server's answer to the first request it passes, and passes every later one. */
async function proxyDroppingFirstAnswer(): Promise<RecordingProxy> {
  const proxy = await startRecordingProxy(yt.server.baseUrl, { dropAnswer: (_request, index) => index === 0 });
  proxies.push(proxy);
  return proxy;
}

/** A new account with its own ledger, and the SDK with its key reaching the server through `proxy`. */
async function accountBehind(proxy: RecordingProxy, options: VerbatimOptions = {}) {
  const { account, key } = await yt.server.platform.accounts.create({ plan: "pro", credits: 100, name: "retries" });
  const verbatim = sdkFor(yt.server, { apiKey: key.key, baseUrl: proxy.baseUrl, ...options });
  const charges = async () =>
    (await ledgerOf(yt.server.platform.store, account.id)).filter((row) => row.kind === "charge");
  return { verbatim, charges, balance: () => yt.server.platform.credits.balance(account.id) };
}

/** The two attempts of a call whose first answer was dropped. */
function attempts(proxy: RecordingProxy): [ProxiedRequest, ProxiedRequest] {
  const [first, second] = proxy.requests;
  expect(proxy.requests).toHaveLength(2);
  if (!first || !second) throw new Error("the proxy saw fewer than two attempts");
  expect(first).toMatchObject({ dropped: true, status: 200 });
  expect(second).toMatchObject({ dropped: false, status: 200 });
  return [first, second];
}

function requestIdOf(request: ProxiedRequest): string {
  return String(request.answerHeaders["x-request-id"]);
}

describe("a POST whose answer was lost after the server charged it", () => {
  it("is retried with the same generated Idempotency-Key and answered by the replay of the stored answer, charged once", async () => {
    const proxy = await proxyDroppingFirstAnswer();
    const { verbatim, charges, balance } = await accountBehind(proxy, { maxRetries: 1 });
    const playerCalls = yt.fake.requestsTo("/youtubei/v1/player").length;

    const transcript = await verbatim.transcripts.video({ video: surfaceGo });

    const [first, second] = attempts(proxy);
    expect(first.headers["idempotency-key"]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(second.headers["idempotency-key"]).toBe(first.headers["idempotency-key"]);
    expect(second.body).toBe(first.body);
    expect(second.answerHeaders["idempotent-replayed"]).toBe("true");
    expect(second.answer).toBe(first.answer);

    expect(transcript.replayed).toBe(true);
    expect(transcript.httpStatus).toBe(200);
    expect(transcript.requestId).toBe(requestIdOf(first));
    expect(transcript.data).toMatchObject({ video_id: surfaceGo, source: "captions" });
    expect(transcript.usage).toMatchObject({ credits_spent: 1, balance: 99 });

    expect(await charges()).toEqual([
      expect.objectContaining({ delta: -1, operation: "POST /transcripts/video", request_id: requestIdOf(first) }),
    ]);
    expect(await balance()).toBe(99);
    expect(yt.fake.requestsTo("/youtubei/v1/player")).toHaveLength(playerCalls + 1);
  });

  it("replays a batch the same way: its rows in order, each charged once", async () => {
    const proxy = await proxyDroppingFirstAnswer();
    const { verbatim, charges } = await accountBehind(proxy, { maxRetries: 2 });

    const batch = await verbatim.transcripts.batch({ video_ids: [russianCivilWar, takenDown] });

    const [first, second] = attempts(proxy);
    expect(second.headers["idempotency-key"]).toBe(first.headers["idempotency-key"]);
    expect(batch.replayed).toBe(true);
    expect(batch.data.results.map((row) => [row.input, row.outcome])).toEqual([
      [russianCivilWar, "ok"],
      [takenDown, "error"],
    ]);
    expect(batch.usage.credits_spent).toBe(1);
    expect(await charges()).toEqual([
      expect.objectContaining({ delta: -1, operation: "POST /transcripts/batch", request_id: requestIdOf(first) }),
    ]);
  });

  it("uses the caller's Idempotency-Key as given for every attempt", async () => {
    const proxy = await proxyDroppingFirstAnswer();
    const { verbatim, charges } = await accountBehind(proxy, { maxRetries: 1 });

    const transcript = await verbatim.transcripts.video({ video: surfaceGo }, { idempotencyKey: "order-42" });

    const [first, second] = attempts(proxy);
    expect([first.headers["idempotency-key"], second.headers["idempotency-key"]]).toEqual(["order-42", "order-42"]);
    expect(transcript.replayed).toBe(true);
    expect(await charges()).toHaveLength(1);
  });

  it("without retries throws ConnectionError after the charge, and the caller's repeat with the same key replays it", async () => {
    const proxy = await proxyDroppingFirstAnswer();
    const { verbatim, charges } = await accountBehind(proxy, { maxRetries: 0 });

    const lost = await verbatim.transcripts
      .video({ video: russianCivilWar }, { idempotencyKey: "caller-retries-1" })
      .catch((error: unknown) => error);
    expect(lost).toBeInstanceOf(ConnectionError);
    expect(await charges()).toHaveLength(1);

    const repeated = await verbatim.transcripts.video(
      { video: russianCivilWar },
      { idempotencyKey: "caller-retries-1" },
    );
    const [first, second] = attempts(proxy);
    expect(second.headers["idempotency-key"]).toBe("caller-retries-1");
    expect(repeated.replayed).toBe(true);
    expect(repeated.requestId).toBe(requestIdOf(first));
    expect(await charges()).toHaveLength(1);
  });
});

describe("a GET whose answer was lost", () => {
  it("is retried without an Idempotency-Key and answered afresh", async () => {
    const proxy = await proxyDroppingFirstAnswer();
    const { verbatim } = await accountBehind(proxy, { maxRetries: 1 });

    const me = await verbatim.me();

    const [first, second] = attempts(proxy);
    expect(first.method).toBe("GET");
    expect(first.headers["idempotency-key"]).toBeUndefined();
    expect(second.headers["idempotency-key"]).toBeUndefined();
    expect(me.replayed).toBe(false);
    expect(me.requestId).toBe(requestIdOf(second));
    expect(me.requestId).not.toBe(requestIdOf(first));
  });
});
