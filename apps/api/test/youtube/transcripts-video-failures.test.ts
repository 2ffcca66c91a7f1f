import { type FakeReply, fixture, fromFixture, playerFromReelRecording } from "@verbatim/testkit/fake-youtube";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serverStartTimeoutMs, startYoutubeServer, type YoutubeTestServer } from "../support/youtube-server.ts";

let yt: YoutubeTestServer;
const startingCredits = 100;

beforeAll(async () => {
  yt = await startYoutubeServer({ credits: startingCredits });
}, serverStartTimeoutMs);

afterAll(async () => {
  await yt?.close();
});

const notAvailable = "stream/youtubestreamextractordefault/notavailable";

/** Asks for a video and expects a failure with this status, code and number, and nothing charged. */
async function expectFailure(
  body: { video: string; mode?: "auto" | "captions" | "audio"; language?: string; ai_fallback?: boolean },
  expected: { status: number; code: string; number: number; retry_with?: unknown },
) {
  const { error, response } = await yt.server.client.POST("/transcripts/video", { body });
  expect(response.status, JSON.stringify(error)).toBe(expected.status);
  expect(error).toMatchObject({
    ok: false,
    error: {
      code: expected.code,
      number: expected.number,
      ...(expected.retry_with === undefined ? {} : { retry_with: expected.retry_with }),
    },
  });
  expect(await yt.balance()).toBe(startingCredits);
  return error;
}

describe("422: the video cannot give a transcript (recorded player responses)", () => {
  const cases: Array<{
    name: string;
    videoId: string;
    reply: () => FakeReply;
    code: string;
    number: number;
    retry_with?: unknown;
  }> = [
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
      name: "a non-existent id (YouTube answers {}) is unavailable (4002)",
      videoId: "don-t-exist",
      reply: () => playerFromReelRecording(`${notAvailable}/nonexistent/generated_mock_1.json`),
      code: "unavailable",
      number: 4002,
    },
    {
      name: "an invalid id (YouTube answers {}) is unavailable (4002)",
      videoId: "INVALID_ID_",
      reply: () => playerFromReelRecording(`${notAvailable}/invalidid/generated_mock_1.json`),
      code: "unavailable",
      number: 4002,
    },
    {
      name: "a members-only video is members_only (4003)",
      videoId: "ayI2iBwGdxw",
      reply: () => playerFromReelRecording(`${notAvailable}/paidcontent/generated_mock_1.json`),
      code: "members_only",
      number: 4003,
    },
    {
      name: "a Music Premium video is members_only (4003)",
      videoId: "sMJ8bRN2dak",
      reply: () => playerFromReelRecording(`${notAvailable}/musicpremiumcontent/generated_mock_1.json`),
      code: "members_only",
      number: 4003,
    },
    {
      name: "an age-restricted video is age_restricted (4004)",
      videoId: "Njp5uhTorCo",
      reply: () => fromFixture("youtube-transcript-api/youtube_age_restricted.innertube.json.static"),
      code: "age_restricted",
      number: 4004,
    },
    {
      name: "a video blocked in our country is region_blocked (4005)",
      videoId: "_PL2HJKxnOM",
      reply: () => playerFromReelRecording(`${notAvailable}/restricted/generated_mock_1.json`),
      code: "region_blocked",
      number: 4005,
    },
    {
      name: "a running live stream is live_stream (4101), naming POST /live to transcribe it as it plays",
      videoId: "X4VbdwhkE10",
      reply: () => {
        const recorded = JSON.parse(
          fixture("newpipe-extractor/stream/youtubestreamextractorlivestream/generated_mock_3.json"),
        );
        return { body: recorded.response.responseBody };
      },
      code: "live_stream",
      number: 4101,
      retry_with: { endpoint: "/api/v2/live" },
    },
    {
      name: "an upcoming live stream is live_stream (4101)",
      videoId: "N-yVic7BbY0",
      reply: () => fromFixture("invidious-mocks/video/scheduled_live_PBD-Podcast.player.json"),
      code: "live_stream",
      number: 4101,
      retry_with: { endpoint: "/api/v2/live" },
    },
    {
      name: "a past live stream without captions is was_live (4102)",
      videoId: "Fjg5lYqvzUs",
      reply: () => fromFixture("youtube-transcript-api/youtube_transcripts_disabled2.innertube.json.static"),
      code: "was_live",
      number: 4102,
    },
  ];

  for (const testCase of cases) {
    it(`${testCase.name}, nothing charged`, async () => {
      yt.fake.player(testCase.videoId.padEnd(11, "_"), testCase.reply());
      await expectFailure(
        { video: testCase.videoId.padEnd(11, "_") },
        {
          status: 422,
          code: testCase.code,
          number: testCase.number,
          ...(testCase.retry_with === undefined ? {} : { retry_with: testCase.retry_with }),
        },
      );
    });
  }

  it("a video whose captions are disabled is captions_disabled (4104) with retry_with audio, in captions and auto mode", async () => {
    yt.fake.player(
      "dsMFmonKDD4",
      fromFixture("youtube-transcript-api/youtube_transcripts_disabled.innertube.json.static"),
    );
    for (const mode of ["captions", "auto"] as const) {
      await expectFailure(
        { video: "dsMFmonKDD4", mode },
        { status: 422, code: "captions_disabled", number: 4104, retry_with: { mode: "audio" } },
      );
    }
  });

  it("a music video without a caption track is captions_disabled (4104)", async () => {
    yt.fake.player("iuevw6218F0", fromFixture("invidious-mocks/video/regular_no-description.player.json"));
    await expectFailure(
      { video: "iuevw6218F0" },
      { status: 422, code: "captions_disabled", number: 4104, retry_with: { mode: "audio" } },
    );
  });

  it("on a server without speech recognition, mode audio is unsupported_platform (3001), without an upstream call", async () => {
    const calls = yt.fake.requests.length;
    const error = await expectFailure(
      { video: "GJLlxj_dtq8", mode: "audio" },
      { status: 422, code: "unsupported_platform", number: 3001 },
    );
    expect(error?.error.message).toMatch(/does not transcribe the audio of YouTube videos/);
    expect(yt.fake.requests.length).toBe(calls);
  });
});

describe("the deprecated ai_fallback flag", () => {
  it("ai_fallback true means mode audio", async () => {
    await expectFailure(
      { video: "GJLlxj_dtq8", ai_fallback: true },
      { status: 422, code: "unsupported_platform", number: 3001 },
    );
  });

  it("ai_fallback together with mode is invalid_request (1001)", async () => {
    await expectFailure(
      { video: "GJLlxj_dtq8", ai_fallback: false, mode: "captions" },
      { status: 400, code: "invalid_request", number: 1001 },
    );
  });
});

describe("503: YouTube blocks or fails us (never 429)", () => {
  it("a bot check is upstream_error (5001)", async () => {
    yt.fake.player("botcheck___", fromFixture("youtube-transcript-api/youtube_request_blocked.innertube.json.static"));
    await expectFailure({ video: "botcheck___" }, { status: 503, code: "upstream_error", number: 5001 });
  });

  it("an unplayable answer with an unknown status is upstream_error (5001)", async () => {
    yt.fake.player("unplayable_", fromFixture("youtube-transcript-api/youtube_unplayable.innertube.json.static"));
    await expectFailure({ video: "unplayable_" }, { status: 503, code: "upstream_error", number: 5001 });
  });

  it("a consent wall is upstream_error (5001)", async () => {
    yt.fake.player("consentwall", {
      body: fixture("youtube-transcript-api/youtube_consent_page.html.static"),
      contentType: "text/html",
    });
    await expectFailure({ video: "consentwall" }, { status: 503, code: "upstream_error", number: 5001 });
  });

  it("a 429 'too many requests' page is upstream_error (5001), asked once, not retried", async () => {
    yt.fake.player("toomany____", {
      status: 429,
      body: fixture("youtube-transcript-api/youtube_too_many_requests.html.static"),
      contentType: "text/html",
    });
    await expectFailure({ video: "toomany____" }, { status: 503, code: "upstream_error", number: 5001 });
    expect(yt.fake.requestsTo("/youtubei/v1/player").filter((r) => r.body?.videoId === "toomany____")).toHaveLength(1);
  });

  it("a 429 on the caption download is upstream_error (5001)", async () => {
    yt.fake
      .player("GJLlxj_dtq8", fromFixture("youtube-transcript-api/youtube.innertube.json.static"))
      .timedtext({ v: "GJLlxj_dtq8", lang: "de" }, { status: 429, body: "" });
    await expectFailure(
      { video: "GJLlxj_dtq8", language: "de" },
      { status: 503, code: "upstream_error", number: 5001 },
    );
  });

  it("a 500 that lasts is upstream_error (5001) after 3 attempts", async () => {
    yt.fake.player("always500__", { status: 500, body: "" });
    await expectFailure({ video: "always500__" }, { status: 503, code: "upstream_error", number: 5001 });
    expect(yt.fake.requestsTo("/youtubei/v1/player").filter((r) => r.body?.videoId === "always500__")).toHaveLength(3);
  });
});

describe("200: a transient failure is retried", () => {
  it("a 500 followed by the recording answers 200 and charges 1 credit", async () => {
    const videoId = "retried500_";
    yt.fake
      .player(videoId, fromFixture("youtube-transcript-api/youtube_ww1_nl_en.innertube.json.static"))
      .player(videoId, { status: 500, body: "" }, 1)
      .timedtext({ v: "F1xioXWb8CY", lang: "en" }, fromFixture("authored/F1xioXWb8CY.en.json3"));
    const { response, error } = await yt.server.client.POST("/transcripts/video", { body: { video: videoId } });
    expect(response.status, JSON.stringify(error)).toBe(200);
    expect(yt.fake.requestsTo("/youtubei/v1/player").filter((r) => r.body?.videoId === videoId)).toHaveLength(2);
    expect(await yt.balance()).toBe(startingCredits - 1);
    await yt.server.platform.credits.grant(yt.server.account.id, 1, "test: restore the balance");
  });
});

describe("503: transport failures", () => {
  it("no answer in time is timeout (5002)", async () => {
    yt.fake.player("hangs______", { hang: true });
    await expectFailure({ video: "hangs______" }, { status: 503, code: "timeout", number: 5002 });
  });

  it("a dropped connection is connection (5003)", async () => {
    yt.fake.player("reset______", { reset: true });
    await expectFailure({ video: "reset______" }, { status: 503, code: "connection", number: 5003 });
  });

  it("a player answer that is not JSON is parse_error (5005)", async () => {
    yt.fake.player("notjson____", { body: "<<not json>>", contentType: "application/json" });
    await expectFailure({ video: "notjson____" }, { status: 503, code: "parse_error", number: 5005 });
  });

  it("a caption body in no known format is parse_error (5005)", async () => {
    yt.fake
      .player("GJLlxj_dtq8", fromFixture("youtube-transcript-api/youtube.innertube.json.static"))
      .timedtext(
        { v: "GJLlxj_dtq8", lang: "ja" },
        { body: "WEBVTT\n\n00:00.000 --> 00:01.000\nhello", contentType: "text/vtt" },
      );
    await expectFailure({ video: "GJLlxj_dtq8", language: "ja" }, { status: 503, code: "parse_error", number: 5005 });
  });
});

describe("422: input that is not a YouTube video", () => {
  it("another site's URL is unsupported_platform (3001) on a server without audio sources", async () => {
    const error = await expectFailure(
      { video: "https://example.com/episode.mp3" },
      { status: 422, code: "unsupported_platform", number: 3001 },
    );
    expect(error?.error.message).toMatch(/transcribes no other sources/);
  });

  it("a YouTube address without a video is invalid_input (3005)", async () => {
    await expectFailure(
      { video: "https://www.youtube.com/@TheDailyShow" },
      { status: 422, code: "invalid_input", number: 3005 },
    );
  });

  it("text that is neither an id nor a URL is invalid_input (3005)", async () => {
    await expectFailure({ video: "not a video" }, { status: 422, code: "invalid_input", number: 3005 });
  });
});
