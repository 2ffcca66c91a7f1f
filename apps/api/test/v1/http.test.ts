import { fromFixture } from "@verbatim/testkit/fake-youtube";
import { registerRecordedLists } from "@verbatim/testkit/youtube-lists";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Answer, type RawRequest, send } from "../support/http.ts";
import { serverStartTimeoutMs, startYoutubeServer, type YoutubeTestServer } from "../support/youtube-server.ts";
import { expectDeprecated, expectV1Error } from "./support.ts";

const captioned = "GJLlxj_dtq8";
const captionsOff = "captionsOff";
const takenDown = "authoredNW1";
const failing = "authoredFA1";
const startingCredits = 1000;

let yt: YoutubeTestServer;

beforeAll(async () => {
  yt = await startYoutubeServer({ credits: startingCredits });
  yt.fake
    .serveRecordedVideos()
    .player(captionsOff, fromFixture("youtube-transcript-api/youtube_transcripts_disabled.innertube.json.static"))
    .player(failing, { status: 500, body: "upstream broke" });
  registerRecordedLists(yt.fake);
}, serverStartTimeoutMs);

afterAll(() => yt?.close());

// biome-ignore lint/suspicious/noExplicitAny: bodies are read loosely and asserted field by field.
type Loose = any;

function v1(request: Omit<RawRequest, "path"> & { path: string }): Promise<Answer> {
  return send(yt.server, { ...request, path: `/api/v1${request.path}` });
}

function post(path: string, json: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  return v1({ method: "POST", path, json, headers });
}

async function charges(): Promise<Array<{ delta: number; operation: string; request_id: string }>> {
  return yt.server.platform.store.query<{ delta: number; operation: string; request_id: string }>(
    sql`select delta::int as delta, operation, request_id from credit_ledger
         where account_id = ${yt.server.account.id} and kind = 'charge' order by id`,
  );
}

/** Asserts a v1 success envelope and the headers every counted v1 response has; answers its body. */
function expectV1Ok(answer: Answer, status = 200): Loose {
  expect(answer.status, answer.text.slice(0, 2000)).toBe(status);
  const body = answer.body as Loose;
  expect(body.ok).toBe(true);
  expect(body.request_id).toBe(answer.headers.get("x-request-id"));
  expect(answer.headers.get("x-ratelimit-limit")).toMatch(/^\d+$/);
  expectDeprecated(answer);
  return body;
}

describe("every v1 operation over HTTP", () => {
  it("GET /health: liveness without an envelope or a key", async () => {
    const answer = await v1({ method: "GET", path: "/health", authorized: false });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ status: "ok", service: "verbatim", version: "0.0.0-test", time: expect.any(String) });
    expect(Number.isNaN(Date.parse((answer.body as Loose).time))).toBe(false);
    expectDeprecated(answer);
  });

  it("GET /me: the account and its balance, free", async () => {
    const before = await yt.balance();
    const body = expectV1Ok(await v1({ method: "GET", path: "/me" }));
    expect(body.data).toEqual({ kind: "me", user_id: yt.server.account.id, credits: before });
    expect(body.usage).toEqual({ credits_spent: 0, balance: before, bytes: 0 });
    expect(await yt.balance()).toBe(before);
  });

  it("POST /transcripts/video: segments by default, text with timestamps false, 1 credit each", async () => {
    const before = await yt.balance();
    const withSegments = expectV1Ok(await post("/transcripts/video", { video: captioned }));
    expect(withSegments.data).toEqual({
      kind: "transcript",
      video_id: captioned,
      platform: "youtube",
      title: expect.any(String),
      thumbnailUrl: expect.stringMatching(/^https:\/\//),
      segments: expect.any(Array),
    });
    expect(withSegments.data.segments[0]).toEqual({
      start: expect.any(Number),
      duration: expect.any(Number),
      text: expect.any(String),
    });
    const asText = expectV1Ok(await post("/transcripts/video", { video: captioned, timestamps: "none" }));
    expect(asText.data.text).toBe(withSegments.data.segments.map((segment: Loose) => segment.text).join(" "));
    expect(asText.data).not.toHaveProperty("segments");
    expect(asText.usage).toEqual({
      credits_spent: 1,
      balance: (before ?? 0) - 2,
      bytes: Buffer.byteLength(asText.data.text),
    });
  });

  it("POST /transcripts/channel: pages of channel_videos, following next_cursor", async () => {
    const first = expectV1Ok(
      await post("/transcripts/channel", { channel: "https://www.youtube.com/user/creativecommons" }),
    );
    expect(first.data).toMatchObject({ kind: "video_list", source: "channel_videos" });
    expect(first.data.videos).toHaveLength(5);
    expect(first.data.videos[0]).toEqual({
      videoId: expect.stringMatching(/^[\w-]{11}$/),
      title: expect.any(String),
      thumbnailUrl: `https://i.ytimg.com/vi/${first.data.videos[0].videoId}/mqdefault.jpg`,
      duration: expect.any(Number),
      channel: expect.anything(),
    });
    expect(first.usage.credits_spent).toBe(1);
    const second = expectV1Ok(
      await post("/transcripts/channel", {
        channel: "https://www.youtube.com/user/creativecommons",
        cursor: first.data.next_cursor,
      }),
    );
    const ids = (page: Loose) => page.data.videos.map((video: Loose) => video.videoId);
    expect(ids(second)).toHaveLength(5);
    expect(ids(second).filter((id: string) => ids(first).includes(id))).toEqual([]);
  });

  it("POST /transcripts/channel with since_video_id: trimmed to the newer videos, 1 credit", async () => {
    const first = expectV1Ok(
      await post("/transcripts/channel", { channel: "https://www.youtube.com/user/creativecommons", limit: 5 }),
    );
    const marker = first.data.videos[2].videoId;
    const since = expectV1Ok(
      await post("/transcripts/channel", {
        channel: "https://www.youtube.com/user/creativecommons",
        since_video_id: marker,
      }),
    );
    expect(since.data.videos.map((video: Loose) => video.videoId)).toEqual(
      first.data.videos.slice(0, 2).map((video: Loose) => video.videoId),
    );
    expect(since.data.next_cursor).toBeNull();
    expect(since.usage.credits_spent).toBe(1);
  });

  it("POST /transcripts/playlist and /transcripts/search: one page each", async () => {
    const playlist = expectV1Ok(
      await post("/transcripts/playlist", {
        playlist: "https://www.youtube.com/playlist?list=PLoumn5BIsUDeGF1vy5Nylf_RJKn5aL_nr",
        limit: 7,
      }),
    );
    expect(playlist.data).toMatchObject({ kind: "video_list", source: "playlist", next_cursor: expect.any(String) });
    expect(playlist.data.videos).toHaveLength(7);
    const search = expectV1Ok(await post("/transcripts/search", { query: "test", limit: 3 }));
    expect(search.data).toMatchObject({ kind: "video_list", source: "search" });
    expect(search.data.videos).toHaveLength(3);
  });

  it("POST /transcripts/batch: outcomes ok, no_transcript and error, only ok rows charged", async () => {
    const before = await yt.balance();
    const body = expectV1Ok(
      await post("/transcripts/batch", { video_ids: [captioned, captionsOff, takenDown], mode: "captions" }),
    );
    const [ok, noTranscript, error] = body.data.results;
    expect(body.data.kind).toBe("transcript_batch");
    expect(ok).toEqual({
      video_id: captioned,
      outcome: "ok",
      reason: null,
      message: null,
      title: expect.any(String),
      text: expect.any(String),
      segments: expect.any(Array),
      bytes: Buffer.byteLength(ok.text),
    });
    expect(noTranscript).toEqual({
      video_id: captionsOff,
      outcome: "no_transcript",
      reason: "captions_disabled",
      message: expect.any(String),
      title: null,
      text: null,
      segments: null,
      bytes: 0,
    });
    expect(error).toMatchObject({ video_id: takenDown, outcome: "error", reason: "unavailable", bytes: 0 });
    expect(body.usage).toEqual({ credits_spent: 1, balance: (before ?? 0) - 1, bytes: ok.bytes });
  });

  it("POST /transcripts/batch takes the legacy videoIds, and refuses both names at once", async () => {
    const legacy = expectV1Ok(await post("/transcripts/batch", { videoIds: [captioned] }));
    expect(legacy.data.results.map((row: Loose) => row.outcome)).toEqual(["ok"]);
    const both = expectV1Error(
      await post("/transcripts/batch", { videoIds: [captioned], video_ids: [captioned] }),
      400,
      "invalid_request",
    );
    expect(both.error?.issues).toEqual([{ path: "/body/videoIds", message: expect.any(String) }]);
  });
});

describe("the v1 error envelope, for each family", () => {
  it("request (1xxx): validation with issues, a bad key, an unknown path, a body over 1 MiB", async () => {
    const invalid = expectV1Error(
      await post("/transcripts/channel", { channel: "@x", limit: 51 }),
      400,
      "invalid_request",
    );
    expect(invalid.error?.issues).toEqual([{ path: "/body/limit", message: "must be <= 50" }]);
    expect(invalid).not.toHaveProperty("reason");

    const badKey = await send(yt.server, {
      method: "GET",
      path: "/api/v1/me",
      authorized: false,
      headers: { authorization: "Bearer vb_live_not-a-real-key" },
    });
    expectV1Error(badKey, 401, "unauthorized");

    const unknownPath = expectV1Error(await v1({ method: "GET", path: "/monitors" }), 404, "invalid_request");
    expect(unknownPath.reason).toBe("not_found");

    const huge = await post("/transcripts/video", { video: "x".repeat(1024 * 1024) });
    expectV1Error(huge, 413, "invalid_request");
  });

  it("both mode and ai_fallback is 400, and a tampered cursor is invalid_request with reason invalid_cursor", async () => {
    const both = expectV1Error(
      await post("/transcripts/video", { video: captioned, mode: "captions", ai_fallback: true }),
      400,
      "invalid_request",
    );
    expect(both.error?.issues?.map((issue) => issue.path)).toEqual(["/body/ai_fallback"]);
    const cursor = expectV1Error(
      await post("/transcripts/playlist", { playlist: "PLoumn5BIsUDeGF1vy5Nylf_RJKn5aL_nr", cursor: "v1.forged" }),
      400,
      "invalid_request",
    );
    expect(cursor.reason).toBe("invalid_cursor");
  });

  it("account (2xxx): 402 with ai_fallback unavailable for credits, 429 with Retry-After, a batch over the cap", async () => {
    const { key: poorKey } = await yt.server.platform.accounts.create({ plan: "free", credits: 0, name: "poor" });
    const poor = await send(yt.server, {
      method: "POST",
      path: "/api/v1/transcripts/video",
      json: { video: captioned },
      headers: { authorization: `Bearer ${poorKey.key}` },
    });
    const broke = expectV1Error(poor, 402, "insufficient_credits");
    expect(broke.ai_fallback).toEqual({
      available: false,
      captions_unavailable: false,
      unavailable_reason: "insufficient_credits",
      message: expect.any(String),
      balance: 0,
    });

    const slowKey = await yt.server.platform.accounts.keys.create(yt.server.account.id, 1);
    const asSlowKey = { authorization: `Bearer ${slowKey.key}` };
    const allowed = await v1({
      method: "POST",
      path: "/transcripts/video",
      json: { video: captioned },
      headers: asSlowKey,
    });
    expect(allowed.status).toBe(200);
    const limited = await v1({
      method: "POST",
      path: "/transcripts/video",
      json: { video: captioned },
      headers: asSlowKey,
    });
    expectV1Error(limited, 429, "rate_limited");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);

    const { key: freeKey } = await yt.server.platform.accounts.create({ plan: "free", credits: 100, name: "free" });
    const tooMany = await send(yt.server, {
      method: "POST",
      path: "/api/v1/transcripts/batch",
      json: { video_ids: Array.from({ length: 51 }, (_, index) => `video${index}`) },
      headers: { authorization: `Bearer ${freeKey.key}` },
    });
    const capped = expectV1Error(tooMany, 400, "invalid_request");
    expect(capped.reason).toBe("batch_too_large");
    expect(capped.error?.message).toContain("50");
  });

  it("input (3xxx): a list of another platform answers unsupported_platform with the precise reason", async () => {
    const answer = await post("/transcripts/playlist", { playlist: "https://www.tiktok.com/@someone" });
    const body = expectV1Error(answer, 422, "unsupported_platform");
    expect(body.reason).toMatch(/^(unsupported_platform|endpoint_platform_mismatch)$/);
  });

  it("content (4xxx): no captions offers ai_fallback with retry_with; a removed video does not", async () => {
    const before = await yt.balance();
    const noCaptions = expectV1Error(
      await post("/transcripts/video", { video: captionsOff, mode: "captions" }),
      422,
      "captions_disabled",
    );
    expect(noCaptions.reason).toBe("captions_disabled");
    expect(noCaptions.ai_fallback).toEqual({
      available: true,
      captions_unavailable: true,
      message: expect.any(String),
      retry_with: { ai_fallback: true },
      balance: before,
    });
    const removed = expectV1Error(await post("/transcripts/video", { video: takenDown }), 422, "unavailable");
    expect(removed.ai_fallback).toMatchObject({
      available: false,
      captions_unavailable: false,
      unavailable_reason: "content_inaccessible",
    });
    expect(await yt.balance()).toBe(before);
  });

  it("transient (5xxx): an upstream failure says to retry the captions first, free", async () => {
    const before = await yt.balance();
    const body = expectV1Error(await post("/transcripts/video", { video: failing }), 503, "upstream_error");
    expect(body.reason).toBe("upstream_error");
    expect(body.ai_fallback).toMatchObject({ available: false, unavailable_reason: "retry_captions_first" });
    expect(await yt.balance()).toBe(before);
  });
  it("ours (9xxx): an unexpected failure is internal_error 500, without its cause", async () => {
    const { credits } = yt.server.platform;
    const requireAtLeast = credits.requireAtLeast;
    credits.requireAtLeast = () => {
      throw new Error("the ledger's disk is on fire");
    };
    try {
      const answer = await post("/transcripts/video", { video: captioned });
      const body = expectV1Error(answer, 500, "internal_error");
      expect(answer.text).not.toContain("fire");
      expect(body).not.toHaveProperty("ai_fallback");
    } finally {
      credits.requireAtLeast = requireAtLeast;
    }
  });
});

describe("one account across versions", () => {
  it("one credit ledger: v1 and v2 charges land in the same ledger and each version reads the other's balance", async () => {
    const ledgerBefore = (await charges()).length;
    const viaV1 = expectV1Ok(await post("/transcripts/video", { video: captioned }));
    const viaV2 = await send(yt.server, {
      method: "POST",
      path: "/api/v2/transcripts/video",
      json: { video: captioned },
    });
    expect(viaV2.status).toBe(200);
    expect((viaV2.body as Loose).usage.balance).toBe(viaV1.usage.balance - 1);
    const meV1 = expectV1Ok(await v1({ method: "GET", path: "/me" }));
    expect(meV1.data.credits).toBe(viaV1.usage.balance - 1);
    const added = (await charges()).slice(ledgerBefore);
    expect(added).toEqual([
      { delta: -1, operation: "POST /transcripts/video", request_id: viaV1.request_id },
      { delta: -1, operation: "POST /transcripts/video", request_id: (viaV2.body as Loose).request_id },
    ]);
  });

  it("one allowance: a v1 request and a v2 request count against the same window", async () => {
    const first = await v1({ method: "POST", path: "/transcripts/search", json: { query: "test", limit: 1 } });
    const second = await send(yt.server, {
      method: "POST",
      path: "/api/v2/transcripts/search",
      json: { query: "test", limit: 1 },
    });
    expect(Number(second.headers.get("x-ratelimit-remaining"))).toBe(
      Number(first.headers.get("x-ratelimit-remaining")) - 1,
    );
  });

  it("one Idempotency-Key: replayed in v1's shape on v1, and a different request (409) on v2", async () => {
    const headers = { "idempotency-key": "v1-and-v2-share-keys" };
    const balanceBefore = await yt.balance();
    const first = expectV1Ok(await post("/transcripts/video", { video: captioned }, headers));
    const replay = await post("/transcripts/video", { video: captioned }, headers);
    expect(replay.status).toBe(200);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body).toEqual(first);
    expectDeprecated(replay);

    const onV2 = await send(yt.server, {
      method: "POST",
      path: "/api/v2/transcripts/video",
      json: { video: captioned },
      headers,
    });
    expect(onV2.status).toBe(409);
    expect((onV2.body as Loose).error).toMatchObject({ code: "idempotency_conflict", number: 1201 });
    expect(await yt.balance()).toBe((balanceBefore ?? 0) - 1);

    const v2First = { "idempotency-key": "v2-then-v1" };
    const v2Answer = await send(yt.server, {
      method: "POST",
      path: "/api/v2/transcripts/search",
      json: { query: "test", limit: 1 },
      headers: v2First,
    });
    expect(v2Answer.status).toBe(200);
    expectV1Error(await post("/transcripts/search", { query: "test", limit: 1 }, v2First), 409, "idempotency_conflict");
  });
});
