import { eventually } from "@verbatim/testkit/eventually";
import { audioFixture } from "@verbatim/testkit/fake-podcast-host";
import { FakeYoutube, recordedVideos } from "@verbatim/testkit/fake-youtube";
import { channelUrl } from "@verbatim/testkit/recorded-channel";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AudioServer, startAudioServer } from "../audio/harness.ts";
import { pollUntilFinished } from "../audio/requests.ts";
import { createdMonitor, type MonitorHarness, startMonitorHarness } from "../monitors/harness.ts";
import type { TestServer } from "../support/server.ts";
import { testEngine } from "../support/store.ts";
import { serverStartTimeoutMs } from "../support/youtube-server.ts";

const { captioned, json3Captioned, takenDown } = recordedVideos;

interface EntryShape {
  video_id: string;
  platform: string;
  source: string;
  language: string | null;
  fetched_at: string;
}

async function libraryOf(server: TestServer): Promise<EntryShape[]> {
  const { data, error, response } = await server.client.GET("/library", { params: { query: { limit: 100 } } });
  if (!data) throw new Error(`library not listed: ${response.status} ${JSON.stringify(error)}`);
  return data.data.entries;
}

describe(`the library records every surface that delivers a transcript (${testEngine})`, () => {
  let fake: FakeYoutube;
  let server: AudioServer;

  beforeAll(async () => {
    fake = await FakeYoutube.start();
    fake.serveRecordedVideos();
    server = await startAudioServer({ youtube: fake, inlineAudioSeconds: 0, workers: 0, credits: 100 });
    server.host.serveFile("/media/jfk.mp3", audioFixture("whisper-cpp/jfk.mp3"), "audio/mpeg");
  }, serverStartTimeoutMs);
  afterAll(async () => {
    await server.close();
    await fake.close();
  });

  it("a request, a batch row and a completed job each add an entry, an error none; fetching again moves it to the top", async () => {
    const single = await server.client.POST("/transcripts/video", { body: { video: captioned } });
    expect(single.response.status).toBe(200);
    const media = server.host.url("/media/jfk.mp3");
    const batch = await server.client.POST("/transcripts/batch", {
      body: { video_ids: [json3Captioned, media, takenDown] },
    });
    const rows = batch.data?.data.results ?? [];
    expect(rows.map((row) => row.outcome)).toEqual(["ok", "processing", "error"]);
    expect((await libraryOf(server)).map((entry) => entry.video_id)).toEqual([json3Captioned, captioned]);

    const again = await server.client.POST("/transcripts/video", { body: { video: captioned } });
    expect(again.response.status).toBe(200);
    const refreshed = await libraryOf(server);
    expect(refreshed.map((entry) => entry.video_id)).toEqual([captioned, json3Captioned]);

    const job = rows[1];
    if (job?.outcome !== "processing") throw new Error(`row 2 is ${JSON.stringify(job)}`);
    expect(refreshed.map((entry) => entry.video_id)).not.toContain(job.video_id);
    await server.startWorkers(1);
    const { answer } = await pollUntilFinished(server, job.poll_url, 60_000);
    expect(answer.body).toMatchObject({ status: "completed" });
    const [newest, ...rest] = await libraryOf(server);
    expect(newest).toMatchObject({ video_id: job.video_id, platform: "file", source: "audio" });
    expect(rest.map((entry) => entry.video_id)).toEqual([captioned, json3Captioned]);

    const found = await server.client.POST("/library/search", { body: { query: "ask not country" } });
    const hit = found.data?.data.hits[0];
    expect(hit?.video_id).toBe(job.video_id);
    expect(hit?.snippets[0]?.url).toMatch(new RegExp(`^${media.replaceAll(".", "\\.")}#t=\\d+$`));
    expect(hit?.snippets[0]?.highlight).toMatch(/<mark>country<\/mark>/i);
  });
});

describe(`the library records a monitor's transcripts (${testEngine})`, () => {
  let h: MonitorHarness;

  beforeAll(async () => {
    h = await startMonitorHarness({ credits: 50 });
  }, serverStartTimeoutMs);
  afterAll(async () => h.close());

  it("adds each new video's transcript a check fetches to the monitor's account", async () => {
    const created = await h.server.client.POST("/monitors", {
      body: { target: channelUrl, webhook_url: h.receiver.url(), transcripts: true },
    });
    const monitorId = createdMonitor(created).id;
    expect(await libraryOf(h.server)).toEqual([]);
    h.publishNewUploads();
    const check = await h.server.client.POST("/monitors/{monitorId}/check", { params: { path: { monitorId } } });
    expect(check.data?.data.new_videos).toBe(3);
    const entries = await eventually(async () => {
      const listed = await libraryOf(h.server);
      return listed.length === 2 ? listed : null;
    });
    expect(entries.map((entry) => entry.video_id).sort()).toEqual([json3Captioned, captioned].sort());
    expect(entries.every((entry) => entry.platform === "youtube" && entry.source === "captions")).toBe(true);
  });
});
