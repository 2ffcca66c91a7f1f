import { type PlatformDouble, startPlatformDouble } from "@verbatim/testkit/platform-double";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AudioServer, startAudioServer } from "../audio/harness.ts";
import { fetchTranscript, type Loose } from "../audio/requests.ts";
import { send } from "../support/http.ts";

// Profiles listed by the real yt-dlp (TikTokUserIE, InstagramUserIE) in its sidecar, through the
// egress guard and the platform double: packages/testkit/fixtures/platforms/tiktok/SOURCE.md
// ("Profile") says what each answer mirrors. The profile lists three posts the double also
// serves one by one, newest first: 08 and 02 on TikTok's first API page, 01 on its second.
const profile = "https://www.tiktok.com/@verbatim.tests";
const newestFirst = ["7400000000000000008", "7400000000000000002", "7400000000000000001"];

let double: PlatformDouble;
let server: AudioServer;

beforeAll(async () => {
  double = await startPlatformDouble({ platforms: ["tiktok", "instagram"] });
  server = await startAudioServer({ platformDouble: double, credits: 10_000 });
}, 120_000);

afterAll(async () => {
  await server?.close();
  await double?.close();
});

function listChannel(body: Record<string, unknown>) {
  return send(server, { method: "POST", path: "/api/v2/transcripts/channel", json: body });
}

/** Requests yt-dlp sent for the profile's pages since `from` (the profile page and TikTok's API). */
function profileReads(from: number): number {
  return double.requests.slice(from).filter((request) => request.url.startsWith(`${profile}`)).length;
}

describe("200: a TikTok profile, read by yt-dlp's profile extractor", () => {
  let rows: Loose[];

  beforeAll(async () => {
    const first = await listChannel({ channel: profile, limit: 2 });
    expect(first.status, first.text).toBe(200);
    const firstPage = (first.body as Loose).data;
    expect(firstPage.next_cursor).toEqual(expect.any(String));
    const second = await listChannel({ channel: profile, limit: 2, cursor: firstPage.next_cursor });
    expect(second.status, second.text).toBe(200);
    expect((second.body as Loose).data.next_cursor).toBeNull();
    rows = [...firstPage.videos, ...(second.body as Loose).data.videos];
    for (const answer of [first, second]) {
      expect((answer.body as Loose).data).toMatchObject({ kind: "video_list", source: "channel", platform: "tiktok" });
      expect((answer.body as Loose).usage.credits_spent).toBe(1);
    }
  }, 120_000);

  it("pages every post once, newest first, across TikTok's two API pages", () => {
    expect(rows.map((row) => row.videoId)).toEqual(newestFirst);
  });

  it("gives each row the post's address, exact time, caption, creator, length, plays and still cover", () => {
    expect(rows[0]).toEqual({
      videoId: "7400000000000000008",
      url: "https://www.tiktok.com/@verbatim.tests/video/7400000000000000008",
      title: "Ask not what your country can do for you #speech #history",
      duration: 11,
      channel: "verbatim.tests",
      publishedAt: "2024-08-03T00:00:00.000Z",
      stats: { plays: 5675 },
      thumbnailUrl:
        "https://p16-sign-va.tiktokcdn.com/tos-maliva-p-0068/7400000000000000008~tplv-tiktokx-origin.image?x-expires=1790800000&x-signature=verbatim",
    });
  });

  it("gives rows whose url /transcripts/video reads as that post", async () => {
    for (const row of rows) {
      const answer = await fetchTranscript(server, { video: row.url });
      expect(answer.status, answer.text).toBe(200);
      expect((answer.body as Loose).data).toMatchObject({ platform: "tiktok", video_id: row.videoId });
    }
  });

  it("trims the page at since_video_id given as a row's url, for 1 credit", async () => {
    const answer = await listChannel({ channel: profile, since_video_id: rows[1]?.url });
    expect(answer.status, answer.text).toBe(200);
    const body = answer.body as Loose;
    expect(body.data.videos.map((row: Loose) => row.videoId)).toEqual(newestFirst.slice(0, 1));
    expect(body.data.next_cursor).toBeNull();
    expect(body.usage.credits_spent).toBe(1);
  });
});

describe("422: profiles that cannot be listed", () => {
  it("answers a private TikTok profile with private (4001), in yt-dlp's words", async () => {
    const answer = await listChannel({ channel: "https://www.tiktok.com/@verbatim.private" });
    expect(answer.status, answer.text).toBe(422);
    const { error } = answer.body as Loose;
    expect(error).toMatchObject({ code: "private", number: 4001 });
    expect(error.message).toMatch(/account is private/);
  });

  it("answers an Instagram profile behind the sign-in wall with private (4001), saying a login is needed", async () => {
    const answer = await listChannel({ channel: "https://www.instagram.com/verbatim.tests/" });
    expect(answer.status, answer.text).toBe(422);
    const { error } = answer.body as Loose;
    expect(error).toMatchObject({ code: "private", number: 4001 });
    expect(error.message).toMatch(/login is needed to list https:\/\/www\.instagram\.com\/verbatim\.tests\b/);
  });

  it("refuses a TikTok post sent as a channel with endpoint_platform_mismatch (3002), before yt-dlp runs", async () => {
    const before = double.requests.length;
    const answer = await listChannel({ channel: "https://www.tiktok.com/@verbatim.tests/video/7400000000000000001" });
    expect(answer.status, answer.text).toBe(422);
    expect((answer.body as Loose).error).toMatchObject({
      code: "endpoint_platform_mismatch",
      number: 3002,
      retry_with: { endpoint: "/api/v2/transcripts/video" },
    });
    expect(double.requests.length).toBe(before);
  });
});

describe("a profile extractor only ever lists", () => {
  it("answers a profile sent to /transcripts/video with unsupported_platform (3001), never walking it", async () => {
    const before = double.requests.length;
    const answer = await fetchTranscript(server, { video: profile });
    expect(answer.status, answer.text).toBe(422);
    expect((answer.body as Loose).error).toMatchObject({ code: "unsupported_platform", number: 3001 });
    expect(profileReads(before)).toBe(0);
  });
});

describe("400 invalid_request: YouTube's options sent for a profile", () => {
  it.each([
    [{ tab: "shorts" }, ["/body/tab"]],
    [{ sort: "popular" }, ["/body/sort"]],
    [{ query: "speech" }, ["/body/query"]],
    [{ tab: "videos", sort: "newest", query: "speech" }, ["/body/tab", "/body/sort", "/body/query"]],
  ])("refuses %j with 1001 naming each field, before any upstream call and for free", async (options, paths) => {
    const before = double.requests.length;
    const answer = await listChannel({ channel: profile, ...options });
    expect(answer.status, answer.text).toBe(400);
    const { error } = answer.body as Loose;
    expect(error).toMatchObject({ code: "invalid_request", number: 1001 });
    expect(error.issues.map((issue: Loose) => issue.path)).toEqual(paths);
    expect(profileReads(before)).toBe(0);
  });
});

describe("422 unsupported_platform: search elsewhere than YouTube", () => {
  it.each(["tiktok", "instagram"])("answers %s with 3001: it has no public search to read", async (platform) => {
    const answer = await send(server, {
      method: "POST",
      path: "/api/v2/transcripts/search",
      json: { query: "speech", platform },
    });
    expect(answer.status, answer.text).toBe(422);
    const { error } = answer.body as Loose;
    expect(error).toMatchObject({ code: "unsupported_platform", number: 3001 });
    expect(error.message).toMatch(/has no public search to read/);
  });
});
