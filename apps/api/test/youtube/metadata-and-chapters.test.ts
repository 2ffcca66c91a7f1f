import {
  type FakeReply,
  fixture,
  fromFixture,
  newpipeRecording,
  playerFromReelRecording,
} from "@verbatim/testkit/fake-youtube";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serverStartTimeoutMs, startYoutubeServer, type YoutubeTestServer } from "../support/youtube-server.ts";

// POST /videos/metadata for YouTube, and the chapters of its transcripts, from recorded player
// responses: NewPipe's recording of ud9d5cMDP_0, whose description lists its chapters
// (packages/testkit/fixtures/youtube/newpipe-extractor; its German track's body is authored,
// authored/SOURCE.md), and Invidious's WEB recording of 2isYuQZMbdU, whose microformat dates it
// (invidious-mocks).

let yt: YoutubeTestServer;
const startingCredits = 100;
const chaptered = "ud9d5cMDP_0";
const dated = "2isYuQZMbdU";
const notAvailable = "stream/youtubestreamextractordefault/notavailable";

beforeAll(async () => {
  yt = await startYoutubeServer({ credits: startingCredits });
  yt.fake
    .player(
      chaptered,
      newpipeRecording("stream/youtubestreamextractordefault/streamsegmentsmailab/generated_mock_3.json"),
    )
    .player(dated, fromFixture("invidious-mocks/video/regular_mrbeast.player.json"))
    .timedtext({ v: chaptered, lang: "de" }, fromFixture("authored/ud9d5cMDP_0.de.json3"));
}, serverStartTimeoutMs);

afterAll(async () => {
  await yt?.close();
});

function metadata(video: string, client = yt.server.client) {
  return client.POST("/videos/metadata", { body: { video } });
}

describe("200: a YouTube video's metadata, for 1 credit", () => {
  it("reads the chapters from the description's timestamps, with the video's details and caption tracks", async () => {
    const before = await yt.balance();
    const { data: body, error, response } = await metadata(`https://www.youtube.com/watch?v=${chaptered}`);
    expect(response.status, JSON.stringify(error)).toBe(200);
    const data = body?.data;
    expect(data).toMatchObject({
      kind: "video_metadata",
      platform: "youtube",
      video_id: chaptered,
      url: `https://www.youtube.com/watch?v=${chaptered}`,
      title: "Vitamin D wissenschaftlich geprüft",
      channel: {
        id: "UCyHDQ5C6z1NDmJ4g6SerW8g",
        name: "MAITHINK X",
        url: "https://www.youtube.com/channel/UCyHDQ5C6z1NDmJ4g6SerW8g",
      },
      duration: 1010,
      // This recording (a VISIONOS answer) has no microformat to date the video by.
      published_at: null,
      language: null,
      stats: { views: 2133714, likes: null, comments: null },
      live_status: "not_live",
      captions: [{ language: "de", kind: "manual", translatable: expect.any(Boolean) }],
    });
    expect(data?.description).toMatch(/^An Vitamin D scheiden sich die Geister/);
    expect(data?.tags).toContain("Vitamin D");
    expect(data?.chapters).toEqual([
      { title: "Ein erstaunlich kontroverses Thema", start: 0, end: 164 },
      { title: "Was ist Vitamin D?", start: 164, end: 364 },
      { title: "Die Saisonalitätshypothese", start: 364, end: 498 },
      { title: "Klinische Studien zu Vitamin D", start: 498, end: 615 },
      { title: "Ab wann hat man Vitamin-D-Mangel?", start: 615, end: 803 },
      { title: "Vorsicht vor pauschalen Empfehlungen", start: 803, end: 981 },
      { title: "Keksempfehlungen", start: 981, end: 1010 },
    ]);
    expect(data?.thumbnails).toEqual([
      { url: "https://i.ytimg.com/vi/ud9d5cMDP_0/mqdefault.jpg", width: 320, height: 180 },
      { url: "https://i.ytimg.com/vi/ud9d5cMDP_0/hq720.jpg", width: 1280, height: 720 },
    ]);
    expect(body?.usage).toEqual({ credits_spent: 1, balance: (before as number) - 1, bytes: 0 });
    expect(await yt.balance()).toBe((before as number) - 1);
  });

  it("asks the WEB client, whose answer dates the video and names the channel's address", async () => {
    const { data: body, error, response } = await metadata(dated);
    expect(response.status, JSON.stringify(error)).toBe(200);
    const asked = yt.fake.requests.filter((request) => request.path === "/youtubei/v1/player").at(-1);
    expect((asked?.body?.context as { client?: { clientName?: string } })?.client?.clientName).toBe("WEB");
    const data = body?.data;
    expect(data).toMatchObject({
      video_id: dated,
      title: "I Gave My 100,000,000th Subscriber An Island",
      published_at: "2022-08-04T19:59:59.000Z",
      channel: { id: "UCX6OQ3DkcsbYNE6H8uQQuVA", name: "MrBeast", url: "https://www.youtube.com/@MrBeast" },
      // The language of YouTube's speech recognition track, the language spoken.
      language: "en",
      chapters: [],
    });
    // The creator's tracks first, each with the languages YouTube translates it into.
    const kinds = data?.captions.map((track) => track.kind) ?? [];
    expect(kinds.indexOf("auto")).toBe(kinds.length - 1);
    expect(data?.captions[0]).toMatchObject({ language: "ar", name: "Arabic", kind: "manual", translatable: true });
    expect(data?.captions[0]?.translation_targets.length).toBeGreaterThan(100);
    expect(data?.thumbnails.map((thumbnail) => thumbnail.width)).toEqual([168, 196, 246, 336, 1920]);
  });

  it("replays the first answer to a retry with the same Idempotency-Key, charged once", async () => {
    const before = (await yt.balance()) as number;
    const ask = () =>
      yt.server.client.POST("/videos/metadata", {
        body: { video: chaptered },
        headers: { "Idempotency-Key": "metadata-replay" },
      });
    const first = await ask();
    const again = await ask();
    expect(first.response.status, JSON.stringify(first.error)).toBe(200);
    expect(again.response.headers.get("idempotent-replayed")).toBe("true");
    expect(again.data).toEqual(first.data);
    expect(await yt.balance()).toBe(before - 1);
  });

  it("counts against the request allowance, one request each, as a transcript request does", async () => {
    const remaining = (response: Response) => Number(response.headers.get("x-ratelimit-remaining"));
    const first = await metadata(chaptered);
    const between = await yt.server.client.POST("/transcripts/languages", { body: { video: chaptered } });
    const second = await metadata(chaptered);
    expect(first.response.status, JSON.stringify(first.error)).toBe(200);
    expect(remaining(first.response) - remaining(between.response)).toBe(1);
    expect(remaining(between.response) - remaining(second.response)).toBe(1);
  });

  it("says a past live stream was live", async () => {
    yt.fake.player(
      "Fjg5lYqvzUs",
      fromFixture("youtube-transcript-api/youtube_transcripts_disabled2.innertube.json.static"),
    );
    const { data: body, error, response } = await metadata("Fjg5lYqvzUs");
    expect(response.status, JSON.stringify(error)).toBe(200);
    expect(body?.data).toMatchObject({ live_status: "was_live", captions: [] });
  });
});

describe("chapters in YouTube transcripts", () => {
  const chapterTitles = [
    "Ein erstaunlich kontroverses Thema",
    "Was ist Vitamin D?",
    "Die Saisonalitätshypothese",
    "Klinische Studien zu Vitamin D",
    "Ab wann hat man Vitamin-D-Mangel?",
    "Vorsicht vor pauschalen Empfehlungen",
    "Keksempfehlungen",
  ];

  /** A transcript answered at once, as a caption transcript is (never a job's 202). */
  async function transcript(body: {
    video?: string;
    chunk_by?: "size" | "chapter";
    chunk_size?: number;
    format?: "text";
  }) {
    const {
      data: answer,
      error,
      response,
    } = await yt.server.client.POST("/transcripts/video", {
      body: { video: chaptered, ...body },
    });
    expect(response.status, JSON.stringify(error)).toBe(200);
    if (answer?.data.kind !== "transcript") throw new Error(`no transcript: ${JSON.stringify(answer)}`);
    return answer.data;
  }

  it("carries the description's chapters, and chunk_by chapter cuts one chunk per chapter", async () => {
    const data = await transcript({ chunk_by: "chapter" });
    expect(data.chapters?.map((chapter) => chapter.title)).toEqual(chapterTitles);
    expect(data.chapters?.[1]).toEqual({ title: "Was ist Vitamin D?", start: 164, end: 364 });
    expect(data.chunks?.map((chunk) => [chunk.chapter, chunk.start])).toEqual([
      [chapterTitles[0], 0],
      [chapterTitles[1], 170],
      [chapterTitles[2], 370],
      [chapterTitles[3], 500],
      [chapterTitles[4], 620],
      [chapterTitles[5], 810],
      [chapterTitles[6], 985],
    ]);
    expect(data.chunks?.[0]?.text).toBe(
      "An Vitamin D scheiden sich die Geister. Für die einen herrscht ein weit verbreiteter Mangel.",
    );
    expect(data.chunks?.map((chunk) => chunk.text).join(" ")).toBe(
      data.segments?.map((segment) => segment.text).join(" "),
    );
  });

  it("serves the chapters again from the store, and still splits a chapter longer than chunk_size", async () => {
    const captionCalls = yt.fake.requests.filter((request) => request.path === "/api/timedtext").length;
    const data = await transcript({ chunk_by: "chapter", chunk_size: 100, format: "text" });
    expect(yt.fake.requests.filter((request) => request.path === "/api/timedtext").length).toBe(captionCalls);
    expect(data.chapters).toHaveLength(7);
    // The second chapter's three lines are 130 characters together; every other chapter's fit in 100.
    expect(data.chunks?.map((chunk) => chunk.chapter)).toEqual([
      chapterTitles[0],
      chapterTitles[1],
      chapterTitles[1],
      ...chapterTitles.slice(2),
    ]);
    expect(data.chunks?.[1]?.text).toBe(
      "Was ist Vitamin D überhaupt? Ein Hormon, das die Haut mit Sonnenlicht bildet.",
    );
    for (const chunk of data.chunks ?? []) expect([...chunk.text].length).toBeLessThanOrEqual(100);
  });

  it("cuts by size alone without chunk_by, as before", async () => {
    const data = await transcript({ chunk_size: 1000 });
    expect(data.chunks).toHaveLength(1);
    expect(data.chunks?.[0]).not.toHaveProperty("chapter");
  });

  it("carries no chapters for a video whose description lists none", async () => {
    yt.fake.serveRecordedVideos();
    const data = await transcript({ video: "GJLlxj_dtq8", chunk_by: "chapter" });
    expect(data).not.toHaveProperty("chapters");
    expect(data.chunks).toHaveLength(1);
  });
});

describe("422: the video has no metadata to read, nothing charged", () => {
  const cases: Array<{ name: string; videoId: string; reply: () => FakeReply; code: string; number: number }> = [
    {
      name: "a private video is private (4001)",
      videoId: "8VajtrESJzA",
      reply: () => playerFromReelRecording(`${notAvailable}/privatecontent/generated_mock_1.json`),
      code: "private",
      number: 4001,
    },
    {
      name: "an unavailable video is unavailable (4002)",
      videoId: "unavailable",
      reply: () => fromFixture("youtube-transcript-api/youtube_video_unavailable.innertube.json.static"),
      code: "unavailable",
      number: 4002,
    },
    {
      name: "a running live stream is live_stream (4101)",
      videoId: "X4VbdwhkE10",
      reply: () => ({
        body: JSON.parse(fixture("newpipe-extractor/stream/youtubestreamextractorlivestream/generated_mock_3.json"))
          .response.responseBody,
      }),
      code: "live_stream",
      number: 4101,
    },
    {
      name: "an upcoming live stream is live_stream (4101)",
      videoId: "N-yVic7BbY0",
      reply: () => fromFixture("invidious-mocks/video/scheduled_live_PBD-Podcast.player.json"),
      code: "live_stream",
      number: 4101,
    },
  ];

  for (const testCase of cases) {
    it(testCase.name, async () => {
      const videoId = testCase.videoId.padEnd(11, "_");
      yt.fake.player(videoId, testCase.reply());
      const before = await yt.balance();
      const { error, response } = await metadata(videoId);
      expect(response.status, JSON.stringify(error)).toBe(422);
      expect(error?.error).toMatchObject({ code: testCase.code, number: testCase.number });
      expect(await yt.balance()).toBe(before);
    });
  }

  it.each([
    [
      "a YouTube address that names no video is invalid_input (3005)",
      "https://www.youtube.com/feed/trending",
      "invalid_input",
      3005,
    ],
    ["text that is no id or address is invalid_input (3005)", "not a video", "invalid_input", 3005],
    [
      "another site, on a server that reads only YouTube, is unsupported_platform (3001)",
      "https://example.com/a.mp3",
      "unsupported_platform",
      3001,
    ],
  ])("%s, without an upstream call", async (_name, video, code, number) => {
    const calls = yt.fake.requests.length;
    const before = await yt.balance();
    const { error, response } = await metadata(video);
    expect(response.status, JSON.stringify(error)).toBe(422);
    expect(error?.error).toMatchObject({ code, number });
    expect(yt.fake.requests.length).toBe(calls);
    expect(await yt.balance()).toBe(before);
  });
});

describe("503: YouTube blocks us, nothing charged", () => {
  it("a bot check is upstream_error (5001)", async () => {
    yt.fake.player("botcheck___", fromFixture("youtube-transcript-api/youtube_request_blocked.innertube.json.static"));
    const before = await yt.balance();
    const { error, response } = await metadata("botcheck___");
    expect(response.status, JSON.stringify(error)).toBe(503);
    expect(error?.error).toMatchObject({ code: "upstream_error", number: 5001 });
    expect(await yt.balance()).toBe(before);
  });
});

describe("402: an account without credits", () => {
  it("is refused before any upstream call, but after its input errors", async () => {
    const { key } = await yt.server.platform.accounts.create({ plan: "free", credits: 0 });
    const client = yt.server.clientFor(key.key);
    const calls = yt.fake.requests.length;
    const refused = await metadata(chaptered, client);
    expect(refused.response.status, JSON.stringify(refused.error)).toBe(402);
    expect(refused.error?.error).toMatchObject({ code: "insufficient_credits", number: 2001 });
    const malformed = await metadata("not a video", client);
    expect(malformed.error?.error.code).toBe("invalid_input");
    expect(yt.fake.requests.length).toBe(calls);
  });
});
