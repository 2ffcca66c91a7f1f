import { channelUrl, newUploads, publishNewUploads, serveRecordedChannel } from "@verbatim/testkit/recorded-channel";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { send } from "../support/http.ts";
import { serverStartTimeoutMs, startYoutubeServer, type YoutubeTestServer } from "../support/youtube-server.ts";

// YouTube's rows as the other sources' are held to: each row's url is the video the transcript
// endpoint reads, and each carries the picture its id names. The recorded Creative Commons channel
// with its two captioned new uploads on top (packages/testkit/src/recorded-channel.ts).

// biome-ignore lint/suspicious/noExplicitAny: bodies are read loosely and asserted field by field.
type Loose = any;

let yt: YoutubeTestServer;

beforeAll(async () => {
  yt = await startYoutubeServer({ credits: 100 });
  serveRecordedChannel(yt.fake);
  publishNewUploads(yt.fake);
  yt.fake.serveRecordedVideos();
}, serverStartTimeoutMs);

afterAll(() => yt?.close());

describe("200: a YouTube channel's rows", () => {
  let rows: Loose[];

  beforeAll(async () => {
    const answer = await send(yt.server, {
      method: "POST",
      path: "/api/v2/transcripts/channel",
      json: { channel: channelUrl, limit: 10 },
    });
    expect(answer.status, answer.text).toBe(200);
    expect((answer.body as Loose).data.platform).toBe("youtube");
    rows = (answer.body as Loose).data.videos;
  });

  it("carry the medium picture of each video's id, as the hosted service's rows do", () => {
    expect(rows.map((row) => row.thumbnailUrl)).toEqual(
      rows.map((row) => `https://i.ytimg.com/vi/${row.videoId}/mqdefault.jpg`),
    );
  });

  it("have urls the transcript endpoint reads as those videos", async () => {
    const captioned = rows.filter((row) => newUploads.slice(0, 2).includes(row.videoId));
    expect(captioned.map((row) => row.videoId)).toEqual(newUploads.slice(0, 2));
    for (const row of captioned) {
      const answer = await send(yt.server, {
        method: "POST",
        path: "/api/v2/transcripts/video",
        json: { video: row.url },
      });
      expect(answer.status, answer.text).toBe(200);
      expect((answer.body as Loose).data).toMatchObject({ platform: "youtube", video_id: row.videoId });
    }
  });
});
