import { errorTable } from "@verbatim/contract";
import { ContentError, type JobProgress, JobTimeoutError, RequestError, type Verbatim } from "@verbatim/sdk";
import { audioFixture } from "@verbatim/testkit/fake-podcast-host";
import { FakeYoutube } from "@verbatim/testkit/fake-youtube";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type GeneratedMedia, generatedMedia } from "../asr/generated-media.ts";
import { type AudioServer, startAudioServer } from "../audio/harness.ts";
import { ledgerOf } from "../platform/helpers.ts";
import { sdkFor } from "../support/sdk.ts";
import { serverStartTimeoutMs } from "../support/youtube-server.ts";

// Transcripts through the SDK against a live server: YouTube captions from the fake YouTube, and
// speech recognition jobs run by the shipped model on the JFK recording served by a fake host.

const surfaceGo = "GJLlxj_dtq8";
const takenDown = "authoredNW1";
const spokenPhrase = "what you can do for your country";

let fake: FakeYoutube;
let server: AudioServer;
let media: GeneratedMedia;
let verbatim: Verbatim;

beforeAll(async () => {
  fake = await FakeYoutube.start();
  fake.serveRecordedVideos();
  // Every transcription is a job, so the 202 path runs on a short fixture.
  server = await startAudioServer({ youtube: fake, inlineAudioSeconds: 0, credits: 100 });
  server.host.serveFile("/media/jfk.mp3", audioFixture("whisper-cpp/jfk.mp3"), "audio/mpeg");
  media = await generatedMedia();
  server.host.serveFile(
    "/media/silence.wav",
    await media.make("silence.wav", ["-f", "lavfi", "-i", "anullsrc=r=16000:cl=mono", "-t", "5"]),
    "audio/wav",
  );
  verbatim = sdkFor(server);
}, serverStartTimeoutMs);
afterAll(async () => {
  await server?.close();
  await fake?.close();
  await media?.remove();
});

/** The JFK recording under an address of its own: each address is new media, so it makes a new job. */
function jfk(variant: string): string {
  return server.host.url(`/media/jfk.mp3?${variant}`);
}

const balance = () => server.platform.credits.balance(server.account.id);

async function chargesUnder(requestId: string) {
  return (await ledgerOf(server.store, server.account.id)).filter((row) => row.request_id === requestId);
}

describe("transcripts.video", () => {
  it("answers a captioned video at once (200) with its segments, charged 1 credit in the ledger", async () => {
    const before = (await balance()) ?? 0;
    const transcript = await verbatim.transcripts.video({ video: surfaceGo });
    expect(transcript.httpStatus).toBe(200);
    expect(transcript).not.toHaveProperty("job_id");
    expect(transcript.data).toMatchObject({ kind: "transcript", video_id: surfaceGo, source: "captions" });
    const segments = "segments" in transcript.data ? (transcript.data.segments ?? []) : [];
    expect(segments.length).toBeGreaterThan(0);
    const text = segments.map((segment) => segment.text).join(" ");
    expect(transcript.usage).toEqual({ credits_spent: 1, balance: before - 1, bytes: Buffer.byteLength(text) });
    expect(await balance()).toBe(before - 1);
    expect(await chargesUnder(transcript.requestId)).toEqual([
      expect.objectContaining({ delta: -1, operation: "POST /transcripts/video" }),
    ]);
  });

  it("with wait, follows the 202 of a speech job to its transcript, charged 1 credit on completion", async () => {
    const before = (await balance()) ?? 0;
    const finished = await verbatim.transcripts.video({ video: jfk("wait") }, { wait: { pollInterval: 100 } });
    expect(finished).toMatchObject({ status: "completed", job_id: expect.stringMatching(/^job_[0-9A-Z]{26}$/) });
    expect(finished.httpStatus).toBe(200);
    expect(finished.data).toMatchObject({ kind: "transcript", platform: "file", source: "audio" });
    expect(finished.data.segments?.map((segment) => segment.text).join(" ")).toBe(finished.data.text);
    expect(finished.data.text).toContain(spokenPhrase);
    expect(finished.usage).toMatchObject({ credits_spent: 1, balance: before - 1 });
    expect(await balance()).toBe(before - 1);
  });

  it("without wait answers the job's 202, which job() and waitForJob read; onProgress hears every poll", async () => {
    await server.stopWorkers();
    let workersStarted: Promise<void> | undefined;
    try {
      const accepted = await verbatim.transcripts.video({ video: jfk("progress") });
      if (!("job_id" in accepted)) throw new Error(`expected a job, got ${JSON.stringify(accepted)}`);
      expect(accepted).toMatchObject({
        httpStatus: 202,
        status: "processing",
        poll_url: `/api/v2/transcripts/jobs/${accepted.job_id}`,
        data: { kind: "transcript_job", platform: "file" },
        usage: { credits_spent: 0 },
      });
      const queued = await verbatim.transcripts.job(accepted.job_id);
      expect(queued).toMatchObject({ status: "processing", progress: 0, job_id: accepted.job_id, httpStatus: 200 });

      const reports: JobProgress[] = [];
      const finished = await verbatim.transcripts.waitForJob(accepted, {
        pollInterval: 100,
        onProgress: (report) => {
          reports.push(report);
          // The job waits in the queue until the first poll has seen it there.
          workersStarted ??= server.startWorkers();
        },
      });
      expect(finished.status).toBe("completed");
      expect(finished.data.text).toContain(spokenPhrase);
      expect(reports.length).toBeGreaterThanOrEqual(2);
      expect(reports.at(-1)).toEqual({ jobId: accepted.job_id, status: "completed", progress: 1 });
      const processing = reports.slice(0, -1);
      expect(processing[0]).toEqual({ jobId: accepted.job_id, status: "processing", progress: 0 });
      for (const report of processing) {
        expect(report).toMatchObject({ jobId: accepted.job_id, status: "processing" });
        expect(report.progress).toBeGreaterThanOrEqual(0);
        expect(report.progress).toBeLessThanOrEqual(1);
      }
      const progressValues = processing.map((report) => report.progress ?? -1);
      expect(progressValues).toEqual([...progressValues].sort((a, b) => a - b));

      const polledAgain = await verbatim.transcripts.job(accepted.job_id);
      expect(polledAgain).toMatchObject({ status: "completed", data: finished.data, usage: finished.usage });
    } finally {
      await (workersStarted ?? server.startWorkers());
    }
  });

  it("waitForJob throws JobTimeoutError when the job outlasts its timeout, and the job goes on to be waited for again", async () => {
    await server.stopWorkers();
    let jobId: string;
    try {
      const accepted = await verbatim.transcripts.video({ video: jfk("timeout") });
      if (!("job_id" in accepted)) throw new Error(`expected a job, got ${JSON.stringify(accepted)}`);
      jobId = accepted.job_id;
      const error = await verbatim.transcripts
        .waitForJob(jobId, { timeout: 50, pollInterval: 100 })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(JobTimeoutError);
      expect(error).toMatchObject({ jobId });
      expect((error as JobTimeoutError).waitedMs).toBeLessThan(1_000);
      expect((await verbatim.transcripts.job(jobId)).status).toBe("processing");
    } finally {
      await server.startWorkers();
    }
    const finished = await verbatim.transcripts.waitForJob(jobId, { pollInterval: 100 });
    expect(finished.data.text).toContain(spokenPhrase);
  });

  it("waitForJob throws the failed job's error as its family class", async () => {
    const accepted = await verbatim.transcripts.video({ video: server.host.url("/media/silence.wav") });
    if (!("job_id" in accepted)) throw new Error(`expected a job, got ${JSON.stringify(accepted)}`);
    const error = await verbatim.transcripts
      .waitForJob(accepted, { pollInterval: 100 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ContentError);
    expect(error).toMatchObject({
      code: "no_speech",
      number: errorTable.no_speech.number,
      status: errorTable.no_speech.status,
      retryable: false,
    });
    const failed = await verbatim.transcripts.job(accepted.job_id);
    expect(failed).toMatchObject({ status: "failed", error: (error as ContentError).body });
  });

  it("job() of an unknown id throws RequestError not_found", async () => {
    const error = await verbatim.transcripts.job("job_01JD7XJ2Q4ZB8N6R0S2T4V6X8Y").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestError);
    expect(error).toMatchObject({ status: 404, code: "not_found", number: 1301 });
  });
});

describe("transcripts.batch", () => {
  it("answers ok, processing and error rows in the items' order, charging the ok row now and the job on completion", async () => {
    const before = (await balance()) ?? 0;
    const items = [surfaceGo, jfk("batch"), takenDown];
    const batch = await verbatim.transcripts.batch({ video_ids: items });
    expect(batch.data.kind).toBe("transcript_batch");
    expect(batch.data.results.map((row) => [row.input, row.outcome])).toEqual([
      [surfaceGo, "ok"],
      [jfk("batch"), "processing"],
      [takenDown, "error"],
    ]);
    const [ok, processing, failed] = batch.data.results;
    expect(ok).toMatchObject({ video_id: surfaceGo, source: "captions" });
    expect(failed).toMatchObject({ video_id: takenDown, error: { code: "unavailable" } });
    if (processing?.outcome !== "processing") throw new Error(`row 2 is ${JSON.stringify(processing)}`);
    expect(batch.usage).toMatchObject({ credits_spent: 1, balance: before - 1 });
    expect(await chargesUnder(batch.requestId)).toHaveLength(1);

    const finished = await verbatim.transcripts.waitForJob(processing.job_id, { pollInterval: 100 });
    expect(finished.data.text).toContain(spokenPhrase);
    expect(await balance()).toBe(before - 2);
    expect(await chargesUnder(batch.requestId)).toHaveLength(2);
  });
});
