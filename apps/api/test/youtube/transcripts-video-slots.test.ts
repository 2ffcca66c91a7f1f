import { fromFixture } from "@verbatim/testkit/fake-youtube";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serverStartTimeoutMs, startYoutubeServer, type YoutubeTestServer } from "../support/youtube-server.ts";

let yt: YoutubeTestServer;

beforeAll(async () => {
  yt = await startYoutubeServer({ plan: "free", credits: 10 });
}, serverStartTimeoutMs);

afterAll(async () => {
  await yt?.close();
});

/** Waits for a condition of the fake upstream; generous, since a loaded machine may take seconds to send a request. */
async function until(condition: () => boolean): Promise<void> {
  await expect.poll(condition, { timeout: 30_000, interval: 10 }).toBe(true);
}

describe("429: every extraction slot is busy", () => {
  it("refuses a third transcript request while the Free plan's 2 slots are held, with Retry-After, nothing charged", async () => {
    // The two videos' player requests answer only once the third request was refused, however slow the machine.
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const unavailable = {
      ...fromFixture("youtube-transcript-api/youtube_video_unavailable.innertube.json.static"),
      heldUntil: released,
    };
    yt.fake.player("slowvideo_1", unavailable).player("slowvideo_2", unavailable);
    const running = ["slowvideo_1", "slowvideo_2"].map((video) =>
      yt.server.client.POST("/transcripts/video", { body: { video } }),
    );
    await until(() => yt.fake.requestsTo("/youtubei/v1/player").length >= 2);
    const { error, response } = await yt.server.client.POST("/transcripts/video", { body: { video: "GJLlxj_dtq8" } });
    release();
    expect(response.status, JSON.stringify(error)).toBe(429);
    expect(error?.error).toMatchObject({ code: "rate_limited", number: 2101 });
    expect(response.headers.get("retry-after")).toBe("2");
    const finished = await Promise.all(running);
    expect(finished.map((result) => result.error?.error.code)).toEqual(["unavailable", "unavailable"]);
    expect(await yt.balance()).toBe(10);
  });
});

describe("200: an Idempotency-Key replays the transcript", () => {
  it("answers the stored response without another upstream call or charge", async () => {
    yt.fake
      .player("F1xioXWb8CY", fromFixture("youtube-transcript-api/youtube_ww1_nl_en.innertube.json.static"))
      .timedtext({ v: "F1xioXWb8CY", lang: "en" }, fromFixture("authored/F1xioXWb8CY.en.json3"));
    const request = () =>
      yt.server.client.POST("/transcripts/video", {
        body: { video: "F1xioXWb8CY" },
        params: { header: { "Idempotency-Key": "transcript-once" } },
      });
    const first = await request();
    expect(first.response.status, JSON.stringify(first.error)).toBe(200);
    const upstreamCalls = yt.fake.requests.length;
    const replay = await request();
    expect(replay.response.status).toBe(200);
    expect(replay.response.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.data).toEqual(first.data);
    expect(yt.fake.requests.length).toBe(upstreamCalls);
    expect(await yt.balance()).toBe(9);
  });
});
