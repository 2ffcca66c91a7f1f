import { eventually } from "@verbatim/testkit/eventually";
import { fromFixture } from "@verbatim/testkit/fake-youtube";
import { channelUrl, newUploads } from "@verbatim/testkit/recorded-channel";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SpeechEngine } from "../../src/adapters/asr/index.ts";
import { newId } from "../../src/ids.ts";
import { type FullTranscript, TranscriptStore } from "../../src/services/kept/transcript-store.ts";
import { TranscriptJobs } from "../../src/services/speech/transcript-jobs.ts";
import type { TranscriptionQueue } from "../../src/services/speech/transcription-queue.ts";
import { verbatimValidator } from "../support/http.ts";
import { serverStartTimeoutMs } from "../support/youtube-server.ts";
import { createdMonitor, type MonitorHarness, recordReportedVideo, startMonitorHarness } from "./harness.ts";

let h: MonitorHarness;
let jobs: TranscriptJobs;
let monitorId: string;

const transcript: FullTranscript = {
  kind: "transcript",
  video_id: "dQw4w9WgXcQ",
  url: "https://www.youtube.com/watch?v=dQw4w9WgXcQ",
  platform: "youtube",
  title: "A captionless upload",
  channel: "Creative Commons",
  duration: 130,
  language: "en",
  source: "audio",
  caption_kind: null,
  thumbnail_url: null,
  speakers: null,
  speech_engine: { engine: "sherpa-onnx", model: "zipformer-gigaspeech-3.3M" },
  text: "ask not",
  segments: [{ start: 0, duration: 1, text: "ask not" }],
};

/** A speech job started for a new video the monitor reported, with the transcript task awaiting it. */
async function jobAwaitedByMonitor() {
  const videosEventId = await recordReportedVideo(h, monitorId, transcript.video_id);
  const jobId = newId("job");
  await jobs.create({
    id: jobId,
    accountId: h.server.account.id,
    videoId: transcript.video_id,
    platform: "youtube",
    request: { video: transcript.video_id },
    work: {},
    docsBaseUrl: h.server.baseUrl,
    callbackUrl: null,
    requestId: newId("req"),
    operation: "POST /monitors/{monitorId}/check",
  });
  await h.server.platform.store.query(sql`
    insert into monitor_transcript_tasks (monitor_id, videos_event_id, video_id, status, job_id)
    values (${monitorId}, ${videosEventId}, ${transcript.video_id}, 'awaiting_job', ${jobId})`);
  const job = await jobs.find(jobId);
  if (!job) throw new Error("the job row was not written");
  return { job, videosEventId };
}

async function transcriptEvents() {
  const { data } = await h.server.client.GET("/monitors/{monitorId}/events", {
    params: { path: { monitorId }, query: { limit: 50 } },
  });
  return (data?.data.events ?? []).filter((event) => event.type === "monitor.transcript");
}

describe("a monitor's transcript that became a speech job", () => {
  beforeAll(async () => {
    h = await startMonitorHarness({ credits: 100 });
    const { store, credits } = h.server.platform;
    jobs = new TranscriptJobs(
      store,
      credits,
      new TranscriptStore(store, () => new Date()),
      () => h.clock.now(),
      undefined,
      [h.settings.monitors.events],
    );
    const created = await h.server.client.POST("/monitors", {
      body: { target: channelUrl, transcripts: true, webhook_url: h.receiver.url() },
    });
    monitorId = createdMonitor(created).id;
  }, serverStartTimeoutMs);
  afterAll(async () => h.close());

  it("is recorded and delivered as a monitor.transcript event when the job completes, with the job's charge", async () => {
    const { job, videosEventId } = await jobAwaitedByMonitor();
    const completion = { transcript, durationSeconds: 130, credits: 3, stored: { platform: "test", item: "monitor" } };
    expect((await jobs.complete(job, completion)).kind).toBe("completed");
    expect(await jobs.complete(job, completion)).toEqual({ kind: "already_finished" });
    const [event, ...others] = await transcriptEvents();
    expect(others).toEqual([]);
    expect(event).toMatchObject({
      type: "monitor.transcript",
      credits_spent: 3,
      data: {
        video_id: transcript.video_id,
        outcome: "ok",
        job_id: job.id,
        error: null,
        videos_event_id: videosEventId,
        transcript: { text: "ask not" },
      },
    });
    expect(verbatimValidator().errors("/components/schemas/MonitorEvent", event)).toEqual([]);
    const delivered = await eventually(() => h.receiver.requests.find((request) => request.body.includes(job.id)));
    expect(delivered.headers["webhook-id"]).toBe(event?.id);
  });

  it("a failed job becomes an error outcome, free", async () => {
    const { job } = await jobAwaitedByMonitor();
    expect(await jobs.fail(job, { code: "no_speech", message: "The audio holds no speech." })).toBe(true);
    const failed = (await transcriptEvents()).find((event) => event.data.job_id === job.id);
    expect(failed).toMatchObject({
      credits_spent: 0,
      data: { outcome: "error", transcript: null, error: { code: "no_speech", number: expect.any(Number) } },
    });
    const [task] = await h.server.platform.store.query<{ status: string }>(
      sql`select status from monitor_transcript_tasks where job_id = ${job.id}`,
    );
    expect(task?.status).toBe("done");
  });
});

/** An engine no job reaches: the test completes the job itself. */
const unusedEngine: SpeechEngine = {
  info: { engine: "sherpa-onnx", model: "zipformer-gigaspeech-3.3M", language: "en", decoding: null },
  transcribe: () => Promise.reject(new Error("no worker runs in this test")),
  check: () => Promise.resolve(),
};

/** A queue that keeps nothing: the test completes the job itself. */
const unworkedQueue: TranscriptionQueue = {
  enqueue: () => Promise.resolve({ withdraw: () => Promise.resolve() }),
  check: () => Promise.resolve(),
};

describe("a monitor's speech job", () => {
  let speech: MonitorHarness;

  beforeAll(async () => {
    speech = await startMonitorHarness({
      credits: 100,
      speech: { engine: unusedEngine, jobs: { queue: unworkedQueue, inlineAudioSeconds: 0, maxQueuedJobs: 10 } },
    });
  }, serverStartTimeoutMs);
  afterAll(async () => speech.close());

  it("is charged on completion under the monitor's operation, which usage by operation reports", async () => {
    const [captionless] = newUploads;
    speech.fake.player(
      captionless,
      fromFixture("youtube-transcript-api/youtube_transcripts_disabled.innertube.json.static"),
    );
    const created = await speech.server.client.POST("/monitors", {
      body: { target: channelUrl, transcripts: true, webhook_url: speech.receiver.url() },
    });
    const monitorId = created.data?.data.id ?? "";
    speech.publishNewUploads();
    const check = await speech.server.client.POST("/monitors/{monitorId}/check", { params: { path: { monitorId } } });
    // The videos event and the captioned upload; the captionless one is a job, the taken-down one free.
    expect(check.data?.usage.credits_spent).toBe(2);
    const [job, ...others] = await speech.server.platform.store.query<{ id: string }>(
      sql`select id from transcript_jobs where video_id = ${captionless}`,
    );
    expect(others).toEqual([]);
    const { store } = speech.server.platform;
    // The process's own jobs, as its transcription workers complete them.
    const completing = speech.server.deps.services.jobs;
    if (!completing) throw new Error("the harness's services have no speech jobs");
    const row = await completing.find(job?.id ?? "");
    if (!row) throw new Error(`no job for ${captionless}`);
    const completion = {
      transcript,
      durationSeconds: 130,
      credits: 3,
      stored: { platform: "test", item: "monitor-operation" },
    };
    expect((await completing.complete(row, completion)).kind).toBe("completed");
    // A job the process completes tells its monitors, whose transcript task waited on it.
    const [task] = await store.query<{ status: string }>(
      sql`select status from monitor_transcript_tasks where job_id = ${row.id}`,
    );
    expect(task?.status).toBe("done");

    const operation = "POST /monitors/{monitorId}/check";
    const charges = await store.query<{ delta: number; operation: string }>(
      sql`select delta::int as delta, operation from credit_ledger where kind = 'charge' order by id`,
    );
    expect(charges).toEqual([
      { delta: -1, operation },
      { delta: -1, operation },
      { delta: -3, operation },
    ]);
    const usage = await speech.server.client.GET("/usage");
    expect(usage.data?.data.endpoints).toEqual([{ endpoint: operation, credits_spent: 5, requests: 3 }]);
  });
});
