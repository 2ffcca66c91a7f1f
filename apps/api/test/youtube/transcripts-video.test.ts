import { fixture, fromFixture, playerFromReelRecording } from "@verbatim/testkit/fake-youtube";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serverStartTimeoutMs, startYoutubeServer, type YoutubeTestServer } from "../support/youtube-server.ts";

const surfaceGo = "GJLlxj_dtq8";
const russianCivilWar = "F1xioXWb8CY";
const ratingsDisabled = "it3OtbTxQk0";

let yt: YoutubeTestServer;

beforeAll(async () => {
  yt = await startYoutubeServer({ credits: 100 });
  yt.fake
    .player(surfaceGo, fromFixture("youtube-transcript-api/youtube.innertube.json.static"))
    .timedtext({ v: surfaceGo, lang: "en" }, fromFixture("authored/GJLlxj_dtq8.en.srv3.xml"))
    .timedtext({ v: surfaceGo, lang: "en", kind: "asr" }, fromFixture("authored/GJLlxj_dtq8.en-asr.srv3.xml"))
    .timedtext({ v: surfaceGo, lang: "cs" }, fromFixture("youtube-transcript-api/transcript.xml.static"))
    .player(russianCivilWar, fromFixture("youtube-transcript-api/youtube_ww1_nl_en.innertube.json.static"))
    .timedtext({ v: russianCivilWar, lang: "en" }, fromFixture("authored/F1xioXWb8CY.en.json3"))
    .player(
      ratingsDisabled,
      playerFromReelRecording("stream/youtubestreamextractordefault/ratingsdisabled/generated_mock_1.json"),
    )
    .timedtext({ v: ratingsDisabled, lang: "en", kind: "asr" }, fromFixture("authored/GJLlxj_dtq8.en-asr.srv3.xml"));
}, serverStartTimeoutMs);

afterAll(async () => {
  await yt?.close();
});

async function fetchTranscript(body: {
  video: string;
  language?: string;
  timestamps?: boolean;
  mode?: "auto" | "captions" | "audio";
}) {
  return yt.server.client.POST("/transcripts/video", { body });
}

/** The transcript of a 200 body; fails the test on anything else. */
function transcriptOf(body: Awaited<ReturnType<typeof fetchTranscript>>["data"]) {
  const transcript = body?.data;
  if (transcript?.kind !== "transcript") throw new Error(`expected a transcript, got ${JSON.stringify(body)}`);
  return transcript;
}

describe("200: captions of a YouTube video", () => {
  it("returns the manual track in the requested language with every transcript field, and charges 1 credit", async () => {
    const before = await yt.balance();
    const { data, error, response } = await fetchTranscript({ video: surfaceGo, language: "en" });
    expect(response.status, JSON.stringify(error)).toBe(200);
    expect(data?.data).toEqual({
      kind: "transcript",
      video_id: surfaceGo,
      url: `https://www.youtube.com/watch?v=${surfaceGo}`,
      platform: "youtube",
      title: "Surface Go Review - It’s Awesome",
      channel: "Dave2D",
      duration: 316,
      language: "en",
      source: "captions",
      caption_kind: "manual",
      thumbnail_url: expect.stringMatching(/^https:\/\/i\.ytimg\.com\/vi\/GJLlxj_dtq8\//),
      speakers: null,
      speech_engine: null,
      segments: [
        { start: 0, duration: 2.31, text: "Microsoft's Surface Go is the smallest" },
        { start: 2.31, duration: 2.95, text: "and cheapest Surface & it's really good." },
        { start: 5.26, duration: 3.12, text: 'The "Type Cover" is sold separately.' },
      ],
    });
    const text =
      "Microsoft's Surface Go is the smallest and cheapest Surface & it's really good. The \"Type Cover\" is sold separately.";
    expect(data?.usage).toEqual({ credits_spent: 1, balance: (before ?? 0) - 1, bytes: Buffer.byteLength(text) });
    expect(await yt.balance()).toBe((before ?? 0) - 1);
  });

  it("creates the youtubei.js session locally: the only upstream calls are the player and the caption body", async () => {
    const paths = new Set(yt.fake.requests.map((request) => request.path));
    expect([...paths].sort()).toEqual(["/api/timedtext", "/youtubei/v1/player"]);
    const player = yt.fake.requestsTo("/youtubei/v1/player")[0];
    expect(player?.body).toMatchObject({ videoId: surfaceGo, context: { client: { clientName: "ANDROID" } } });
  });

  it("serves the same video and language from the store without another upstream call, still for 1 credit", async () => {
    const before = await yt.balance();
    const upstreamCalls = yt.fake.requests.length;
    const { data, response } = await fetchTranscript({ video: `https://youtu.be/${surfaceGo}?t=42`, language: "en" });
    expect(response.status).toBe(200);
    expect(transcriptOf(data).segments).toHaveLength(3);
    expect(transcriptOf(data).title).toBe("Surface Go Review - It’s Awesome");
    expect(yt.fake.requests.length).toBe(upstreamCalls);
    expect(await yt.balance()).toBe((before ?? 0) - 1);
  });

  it("parses the legacy transcript XML: entities decoded, markup removed, empty cues dropped", async () => {
    const { data, response } = await fetchTranscript({ video: surfaceGo, language: "cs" });
    expect(response.status).toBe(200);
    expect(transcriptOf(data).language).toBe("cs");
    expect(transcriptOf(data).segments).toEqual([
      { start: 0, duration: 1.54, text: "Hey, this is just a test" },
      { start: 1.54, duration: 4.16, text: "this is not the original transcript" },
      { start: 5.7, duration: 3.239, text: "just something shorter, I made up for testing" },
    ]);
  });

  it("falls back to the original-language manual track when the requested language has no track (json3 body)", async () => {
    const { data, response } = await fetchTranscript({ video: russianCivilWar, language: "de" });
    expect(response.status).toBe(200);
    expect(data?.data).toMatchObject({
      language: "en",
      caption_kind: "manual",
      title: "The Tide Is Turning - Russian Civil War Fall 1919 I THE GREAT WAR 1919",
    });
    expect(transcriptOf(data).segments).toEqual([
      { start: 0.16, duration: 4.08, text: "The autumn of 1919 was the turning point" },
      { start: 4.24, duration: 3.12, text: "of the Russian Civil War &amp; its armies." },
      { start: 7.4, duration: 2.6, text: "Let’s find out why." },
    ]);
  });

  it("matches a regional tag to its base language", async () => {
    const { data, response } = await fetchTranscript({
      video: `https://m.youtube.com/watch?v=${russianCivilWar}&feature=share`,
      language: "en-GB",
    });
    expect(response.status).toBe(200);
    expect(data?.data).toMatchObject({ language: "en", caption_kind: "manual" });
  });

  it("returns the automatic track when it is the only one, as caption_kind auto", async () => {
    const { data, response } = await fetchTranscript({ video: `https://www.youtube.com/shorts/${ratingsDisabled}` });
    expect(response.status).toBe(200);
    expect(data?.data).toMatchObject({ language: "en", caption_kind: "auto", source: "captions" });
    expect(transcriptOf(data).segments).toEqual([
      { start: 0.08, duration: 3.2, text: "so this is the surface go" },
      { start: 3.28, duration: 2.9, text: "it's awesome" },
    ]);
  });

  it("joins the text when timestamps is false", async () => {
    const { data, response } = await fetchTranscript({ video: surfaceGo, language: "cs", timestamps: false });
    expect(response.status).toBe(200);
    expect(transcriptOf(data).segments).toBeUndefined();
    expect(transcriptOf(data).text).toBe(
      "Hey, this is just a test this is not the original transcript just something shorter, I made up for testing",
    );
  });
});

describe("200: the caption body is empty (YouTube wants a PO token)", () => {
  it("reads the transcript panel instead and says which track it returned", {
    timeout: 2 * serverStartTimeoutMs,
  }, async () => {
    const poTokenVideo = surfaceGo;
    const local = await startYoutubeServer({ credits: 10 });
    try {
      local.fake
        .player(poTokenVideo, fromFixture("youtube-transcript-api/youtube_po_token_required.innertube.json.static"))
        .timedtext({ v: poTokenVideo, lang: "en" }, { body: "" })
        .innertube("next", { videoId: poTokenVideo }, fromFixture("authored/GJLlxj_dtq8.next.json"))
        .innertube(
          "get_transcript",
          {
            params: JSON.parse(fixture("authored/GJLlxj_dtq8.next.json")).engagementPanels[0]
              .engagementPanelSectionListRenderer.content.continuationItemRenderer.continuationEndpoint
              .getTranscriptEndpoint.params,
          },
          fromFixture("authored/GJLlxj_dtq8.get_transcript.json"),
        );
      const { data, error, response } = await local.server.client.POST("/transcripts/video", {
        body: { video: poTokenVideo, language: "en" },
      });
      expect(response.status, JSON.stringify(error)).toBe(200);
      expect(data?.data).toMatchObject({ language: "en", caption_kind: "manual", source: "captions" });
      expect(transcriptOf(data).segments).toEqual([
        { start: 0, duration: 2.31, text: "Microsoft's Surface Go is the smallest" },
        { start: 2.31, duration: 2.95, text: "and cheapest Surface and it's really good." },
      ]);
      expect(local.fake.requestsTo("/api/timedtext")[0]?.query.get("exp")).toBe("xpe");
      expect(local.fake.requestsTo("/youtubei/v1/get_transcript")).toHaveLength(1);
      expect(await local.balance()).toBe(9);
    } finally {
      await local.close();
    }
  });
});

describe("200 with an Idempotency-Key: the charge commits with the stored answer", () => {
  it("delivers, charges once and stores the answer even when recording the delivery in the library fails", async () => {
    const { library } = yt.server.platform;
    const record = library.record;
    // A statement that fails inside the transaction the charge waits in: a savepoint must contain it.
    library.record = async (_accountId, _transcript, db) => {
      await db?.execute(sql`select 1 / 0`);
    };
    const before = await yt.balance();
    const request = () =>
      yt.server.client.POST("/transcripts/video", {
        body: { video: russianCivilWar, language: "fr" },
        params: { header: { "Idempotency-Key": "library-fails-1" } },
      });
    try {
      const first = await request();
      expect(first.response.status, JSON.stringify(first.error)).toBe(200);
      expect(first.data?.usage).toMatchObject({ credits_spent: 1, balance: (before ?? 0) - 1 });
      const replay = await request();
      expect(replay.response.headers.get("idempotent-replayed")).toBe("true");
      expect(replay.data).toEqual(first.data);
      expect(await yt.balance()).toBe((before ?? 0) - 1);
    } finally {
      library.record = record;
    }
  });
});
