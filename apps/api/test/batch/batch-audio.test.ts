import { audioFixture } from "@verbatim/testkit/fake-podcast-host";
import { FakeYoutube } from "@verbatim/testkit/fake-youtube";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AudioServer, startAudioServer } from "../audio/harness.ts";
import { pollUntilFinished } from "../audio/requests.ts";
import { serverStartTimeoutMs } from "../support/youtube-server.ts";

const surfaceGo = "GJLlxj_dtq8";
const takenDown = "authoredNW1";

let fake: FakeYoutube;
let server: AudioServer;

describe("a batch mixing captions, speech recognition and failures", () => {
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

  it("gives ok, processing and error rows with exact charges under the batch: 1 now, the job's on completion, the error free", async () => {
    const media = server.host.url("/media/jfk.mp3");
    const { data, response } = await server.client.POST("/transcripts/batch", {
      body: { video_ids: [surfaceGo, media, takenDown, media] },
    });
    expect(response.status).toBe(200);
    const [ok, processing, failed, repeated] = data?.data.results ?? [];
    expect(ok).toMatchObject({ outcome: "ok", input: surfaceGo });
    expect(failed).toMatchObject({ outcome: "error", video_id: takenDown, error: { code: "unavailable" } });
    if (processing?.outcome !== "processing") throw new Error(`row 2 is ${JSON.stringify(processing)}`);
    expect(processing.input).toBe(media);
    expect(processing.poll_url).toBe(`/api/v2/transcripts/jobs/${processing.job_id}`);
    expect(repeated).toEqual(processing);
    expect(data?.usage.credits_spent).toBe(1);
    const charges = () =>
      server.store.query<{ delta: number; operation: string }>(
        sql`select delta::int as delta, operation from credit_ledger where kind = 'charge' order by id`,
      );
    expect(await charges()).toEqual([{ delta: -1, operation: "POST /transcripts/batch" }]);

    await server.startWorkers(1);
    const { answer } = await pollUntilFinished(server, processing.poll_url);
    expect(answer.body).toMatchObject({ status: "completed", usage: { credits_spent: 1 } });
    expect(await charges()).toEqual(Array(2).fill({ delta: -1, operation: "POST /transcripts/batch" }));
    const usage = await server.client.GET("/usage");
    expect(usage.data?.data.endpoints).toEqual([
      { endpoint: "POST /transcripts/batch", credits_spent: 2, requests: 2 },
    ]);
  });
});
