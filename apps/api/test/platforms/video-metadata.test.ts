import { type PlatformDouble, startPlatformDouble } from "@verbatim/testkit/platform-double";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AudioServer, startAudioServer } from "../audio/harness.ts";
import { fetchTranscript, type Loose } from "../audio/requests.ts";
import { send } from "../support/http.ts";

// POST /videos/metadata beyond YouTube: TikTok, Vimeo and X items through the real yt-dlp and the
// platform double (packages/testkit/fixtures/platforms/<platform>/SOURCE.md says what each item is;
// Vimeo's `chapters` item lists three chapters in its player config).

let double: PlatformDouble;
let server: AudioServer;

beforeAll(async () => {
  double = await startPlatformDouble();
  server = await startAudioServer({ platformDouble: double, credits: 100, workers: 0 });
}, 120_000);

afterAll(async () => {
  await server?.close();
  await double?.close();
});

function metadata(video: string) {
  return send(server, { method: "POST", path: "/api/v2/videos/metadata", json: { video } });
}

const balance = async () => server.platform.credits.balance(server.account.id);

describe("200: a platform item's metadata from yt-dlp, for 1 credit", () => {
  it("reads a TikTok post: its caption, creator, date, counts and tracks", async () => {
    const before = (await balance()) as number;
    const answer = await metadata("https://www.tiktok.com/@verbatim.tests/video/7400000000000000001");
    expect(answer.status, answer.text).toBe(200);
    const body = answer.body as Loose;
    expect(body.data).toMatchObject({
      kind: "video_metadata",
      platform: "tiktok",
      video_id: "7400000000000000001",
      url: "https://www.tiktok.com/@verbatim.tests/video/7400000000000000001",
      title: "Ask not what your country can do for you #speech #history",
      description: "Ask not what your country can do for you #speech #history",
      channel: {
        id: "MS4wLjABAAAAverbatimTestsSecUid",
        name: "verbatim.tests",
        url: "https://www.tiktok.com/@verbatim.tests",
      },
      duration: 11,
      published_at: "2024-08-01T00:00:00.000Z",
      stats: { views: 5675, likes: 249, comments: 8 },
      chapters: [],
      captions: [{ language: "en-US", name: null, kind: "auto", translatable: false, translation_targets: [] }],
    });
    expect(body.data.thumbnails[0].url).toMatch(/^https:\/\/p16-sign-va\.tiktokcdn\.com\//);
    expect(body.usage).toEqual({ credits_spent: 1, balance: before - 1, bytes: 0 });
    expect(await balance()).toBe(before - 1);
  });

  it("reads a Vimeo video's chapters, in order, each ending where the next starts", async () => {
    const answer = await metadata("https://player.vimeo.com/video/76979872");
    expect(answer.status, answer.text).toBe(200);
    const { data } = answer.body as Loose;
    expect(data).toMatchObject({
      platform: "vimeo",
      video_id: "76979872",
      title: "Ask Not, in Chapters",
      channel: { id: "staff", name: "Vimeo", url: "https://vimeo.com/staff" },
      duration: 11,
      chapters: [
        { title: "My fellow Americans", start: 0, end: 3 },
        { title: "Ask not", start: 3, end: 8 },
        { title: "Ask what you can do", start: 8, end: 11 },
      ],
    });
    expect(data.captions.map((track: Loose) => `${track.language} ${track.kind}`)).toEqual(["en manual", "en auto"]);
  });

  it("reads an X post: its text, hashtags and counts", async () => {
    const answer = await metadata("https://x.com/verbatimtests/status/1900000000000000001");
    expect(answer.status, answer.text).toBe(200);
    expect((answer.body as Loose).data).toMatchObject({
      platform: "x",
      video_id: "1900000000000000001",
      description:
        "#history Ask not what your country can do for you: the inaugural address, captioned https://t.co/VerbatimT1",
      tags: ["history"],
      channel: { id: "1900000000000000900", url: "https://twitter.com/verbatimtests" },
      stats: { views: 5675, likes: 249, comments: 8 },
    });
  });
});

describe("chapters in platform transcripts", () => {
  it("carries a Vimeo video's chapters, and chunk_by chapter cuts its captions at them", async () => {
    const answer = await fetchTranscript(server, {
      video: "https://player.vimeo.com/video/76979872",
      chunk_by: "chapter",
    });
    expect(answer.status, answer.text).toBe(200);
    const { data } = answer.body as Loose;
    expect(data.chapters).toEqual([
      { title: "My fellow Americans", start: 0, end: 3 },
      { title: "Ask not", start: 3, end: 8 },
      { title: "Ask what you can do", start: 8, end: 11 },
    ]);
    expect(data.chunks).toEqual([
      { text: "And so, my fellow Americans,", start: 0, end: 4.2, chapter: "My fellow Americans" },
      { text: "ask not what your country can do for you,", start: 4.2, end: 8.4, chapter: "Ask not" },
      { text: "ask what you can do for your country.", start: 8.4, end: 11, chapter: "Ask what you can do" },
    ]);
  });

  it("serves the chapters again with the stored captions", async () => {
    const answer = await fetchTranscript(server, { video: "https://player.vimeo.com/video/76979872" });
    expect(answer.status, answer.text).toBe(200);
    expect((answer.body as Loose).data.chapters).toHaveLength(3);
  });

  it("carries no chapters for a TikTok post, and chunk_by chapter gives one chunk", async () => {
    const answer = await fetchTranscript(server, {
      video: "https://www.tiktok.com/@verbatim.tests/video/7400000000000000001",
      chunk_by: "chapter",
    });
    expect(answer.status, answer.text).toBe(200);
    const { data } = answer.body as Loose;
    expect(data).not.toHaveProperty("chapters");
    expect(data.chunks).toHaveLength(1);
    expect(data.chunks[0]).not.toHaveProperty("chapter");
  });
});

describe("422: a platform item with no metadata to read, nothing charged", () => {
  it.each([
    [
      "a private TikTok post is private (4001)",
      "https://www.tiktok.com/@verbatim.tests/video/7400000000000000003",
      "private",
      4001,
    ],
    [
      "a deleted X post is unavailable (4002)",
      "https://x.com/verbatimtests/status/1900000000000000004",
      "unavailable",
      4002,
    ],
    ["a deleted Vimeo video is unavailable (4002)", "https://player.vimeo.com/video/123000456", "unavailable", 4002],
  ])("%s", async (_name, video, code, number) => {
    const before = await balance();
    const answer = await metadata(video);
    expect(answer.status, answer.text).toBe(422);
    expect((answer.body as Loose).error).toMatchObject({ code, number });
    expect(await balance()).toBe(before);
  });
});
