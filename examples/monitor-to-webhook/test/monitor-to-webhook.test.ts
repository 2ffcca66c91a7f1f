import { Verbatim, type WebhookEvent } from "@verbatim/sdk";
import { startVerbatim, type VerbatimService } from "@verbatim/testkit";
import { eventually } from "@verbatim/testkit/eventually";
import { FakeYoutube } from "@verbatim/testkit/fake-youtube";
import { channelUrl, newUploads, publishNewUploads, serveRecordedChannel } from "@verbatim/testkit/recorded-channel";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { monitorToWebhook } from "../src/monitor-to-webhook.ts";

let youtube: FakeYoutube;
let server: VerbatimService;
beforeAll(async () => {
  youtube = await FakeYoutube.start();
  serveRecordedChannel(youtube);
  // Captions for two of the new uploads; the third (`authoredNW1`) was taken down.
  youtube.serveRecordedVideos();
  server = await startVerbatim({ from: import.meta.url, youtube, credits: 50 });
});
afterAll(async () => {
  await server?.close();
  await youtube?.close();
});

describe("the monitor-to-webhook example", () => {
  it("creates a monitor delivering to its receiver, and a check's monitor.videos and monitor.transcript events arrive verified", async () => {
    const lines: string[] = [];
    const events: WebhookEvent[] = [];
    const verbatim = new Verbatim({ apiKey: server.apiKey, baseUrl: server.baseUrl });
    const followed = await monitorToWebhook(verbatim, {
      channel: channelUrl,
      listen: { port: 0 },
      print: (line) => lines.push(line),
      onEvent: (event) => events.push(event),
    });
    expect(lines).toEqual([
      `monitor ${followed.monitorId} watches ${channelUrl}: 30 videos already there, checked every 60 min`,
      `its events go to ${followed.webhookUrl}`,
    ]);

    publishNewUploads(youtube);
    await followed.check();
    // The check's answer and the first deliveries race; the order of their lines is not fixed.
    expect(lines).toContainEqual(
      expect.stringMatching(/^check: 3 new videos in event evt_[0-9A-Z]{26}, 3 credits spent$/),
    );
    await eventually(() => events.length === 4);

    const videos = events.find((event) => event.type === "monitor.videos");
    expect(videos?.data.videos.map((video) => video.videoId)).toEqual([...newUploads]);
    const outcomes = events.flatMap((event) =>
      event.type === "monitor.transcript" ? [`${event.data.video_id} ${event.data.outcome}`] : [],
    );
    expect(outcomes.sort()).toEqual(["F1xioXWb8CY ok", "GJLlxj_dtq8 ok", "authoredNW1 error"]);
    expect(lines).toContain(`monitor.videos ${followed.monitorId}: 3 new on ${channelUrl} (${newUploads.join(", ")})`);
    expect(lines).toContain(`monitor.transcript ${followed.monitorId}: authoredNW1 error, unavailable`);

    await followed.close();
    const { data } = await verbatim.monitors.list();
    expect(data.monitors).toEqual([]);
  });
});
