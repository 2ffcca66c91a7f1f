import type { ErrorCode } from "@verbatim/contract";
import { errorTable } from "@verbatim/contract";
import { audioFixture } from "@verbatim/testkit/fake-podcast-host";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "../../src/ids.ts";
import { createLogger } from "../../src/logger.ts";
import { type FullTranscript, TranscriptStore } from "../../src/services/kept/transcript-store.ts";
import { TranscriptJobs } from "../../src/services/speech/transcript-jobs.ts";
import { createWebhooks } from "../../src/services/webhooks/webhook-deliverer.ts";
import { type GeneratedMedia, generatedMedia } from "../asr/generated-media.ts";
import { ledgerOf } from "../platform/helpers.ts";
import { expectErrorEnvelope, verbatimValidator } from "../support/http.ts";
import { type AudioServer, startAudioServer } from "./harness.ts";
import { encryptedM4a, fiveHourFlac } from "./problem-media.ts";
import { expectJobAccepted, fetchTranscript, type Loose, pollUntilFinished } from "./requests.ts";

describe("failed jobs: HTTP 200 with ok false, the error's code and number, nothing charged", () => {
  let server: AudioServer;
  let media: GeneratedMedia;

  beforeAll(async () => {
    server = await startAudioServer({
      inlineAudioSeconds: 0,
      webhooks: (store) => createWebhooks(store, { logger: createLogger("silent"), allowPrivateTargets: true }),
    });
    media = await generatedMedia();
    server.host.serveFile(
      "/media/silence.wav",
      await media.make("silence.wav", ["-f", "lavfi", "-i", "anullsrc=r=16000:cl=mono", "-t", "5"]),
      "audio/wav",
    );
    server.host.serveFile(
      "/media/picture.mp4",
      await media.make("picture.mp4", ["-f", "lavfi", "-i", "testsrc=size=64x64:rate=5", "-t", "1", "-c:v", "mpeg4"]),
      "video/mp4",
    );
    server.host.serveFile("/media/five-hours.flac", await fiveHourFlac(media), "audio/flac");
    server.host.serveFile("/media/encrypted.m4a", await encryptedM4a(media), "audio/mp4");
  });
  afterAll(async () => {
    await server?.close();
    await media?.remove();
  });

  it.each([
    ["/media/silence.wav", "no_speech"],
    ["/media/picture.mp4", "no_audio_stream"],
    ["/media/five-hours.flac", "audio_too_long"],
    ["/media/encrypted.m4a", "drm_protected"],
  ] as Array<[string, ErrorCode]>)("%s fails its job with %s", async (path, code) => {
    const ledgerBefore = await ledgerOf(server.store, server.account.id);
    const balance = await server.platform.credits.balance(server.account.id);
    const accepted = await fetchTranscript(server, {
      video: server.host.url(path),
      callback_url: "https://hooks.example.com/failed",
    });
    const pollUrl = expectJobAccepted(accepted, { platform: "file", balance });
    const { answer } = await pollUntilFinished(server, pollUrl);
    const body = answer.body as Loose;
    expect(answer.status, answer.text).toBe(200);
    expect(body, answer.text).toEqual({
      ok: false,
      request_id: answer.headers.get("x-request-id"),
      status: "failed",
      job_id: (accepted.body as Loose).job_id,
      data: null,
      error: {
        code,
        number: errorTable[code].number,
        message: expect.stringMatching(/\S/),
        docs: `${server.baseUrl}/docs/errors/${code}`,
      },
    });
    expect(await ledgerOf(server.store, server.account.id)).toEqual(ledgerBefore);
    const [delivery] = await server.store.query<{ payload: Loose }>(
      sql`select payload from webhook_deliveries where payload->>'job_id' = ${body.job_id}`,
    );
    expect(delivery?.payload).toEqual({
      type: "transcript_job.failed",
      job_id: body.job_id,
      status: "failed",
      error: body.error,
    });
  });

  describe("402 insufficient_credits", () => {
    it("refuses a job before any work when the balance is 0", async () => {
      const { key } = await server.platform.accounts.create({ plan: "free", credits: 0, name: "empty" });
      const [before] = await server.store.query<{ jobs: number }>(
        sql`select count(*)::int as jobs from transcript_jobs`,
      );
      const requestsBefore = server.host.requests.length;
      const answer = await fetchTranscript(
        { ...server, key: { ...server.key, key: key.key } },
        { video: server.host.url("/media/silence.wav?empty") },
      );
      expectErrorEnvelope(answer, 402, "insufficient_credits");
      const [after] = await server.store.query<{ jobs: number }>(
        sql`select count(*)::int as jobs from transcript_jobs`,
      );
      expect(after).toEqual(before);
      expect(server.host.requests.length).toBe(requestsBefore);
    });

    it("answers input errors before the 402: a balance of 0 still hears what is wrong with the request", async () => {
      const { key } = await server.platform.accounts.create({ plan: "free", credits: 0, name: "empty, bad input" });
      const asEmptyAccount = { ...server, key: { ...server.key, key: key.key } };
      for (const video of ["not a video at all", "https://www.youtube.com/feed/trending"]) {
        const answer = await fetchTranscript(asEmptyAccount, { video });
        expectErrorEnvelope(answer, 422, "invalid_input");
        expect((answer.body as Loose).error.number).toBe(3005);
      }
      const answer = await fetchTranscript(asEmptyAccount, {
        video: server.host.url("/media/silence.wav?callback"),
        callback_url: "http://hooks.example.com/done",
      });
      expectErrorEnvelope(answer, 400, "invalid_request");
    });

    it("fails a job whose transcript costs more than the balance at completion, charging nothing, and keeps the transcript", async () => {
      // 77 s of speech: 2 started minutes, against a balance of 1.
      const long = await media.make("jfk-77s.wav", ["-stream_loop", "6", "-i", audioFixture("whisper-cpp/jfk.wav")]);
      server.host.serveFile("/media/jfk-77s.wav", long, "audio/wav");
      const { account, key } = await server.platform.accounts.create({ plan: "free", credits: 1, name: "one credit" });
      const asPoorAccount = { ...server, key: { ...server.key, key: key.key } };
      const video = server.host.url("/media/jfk-77s.wav");
      const pollUrl = expectJobAccepted(await fetchTranscript(asPoorAccount, { video }), {
        platform: "file",
        balance: 1,
      });
      // Once a second: a Free account may poll 120 times a minute, and a loaded machine takes a while over 77 s of speech.
      const { answer } = await pollUntilFinished(asPoorAccount, pollUrl, 60_000, 1_000);
      expect(answer.body, answer.text).toMatchObject({
        ok: false,
        status: "failed",
        error: { code: "insufficient_credits", number: 2001 },
      });
      expect((await ledgerOf(server.store, account.id)).filter((row) => row.kind === "charge")).toEqual([]);

      await server.platform.credits.grant(account.id, 5, "top-up");
      const served = await fetchTranscript(asPoorAccount, { video, timestamps: false });
      expect(served.status, served.text).toBe(200);
      expect((served.body as Loose).data.text).toContain("what you can do for your country");
      expect((served.body as Loose).usage).toMatchObject({ credits_spent: 2, balance: 4 });
    });
  });

  describe("completion is idempotent", () => {
    it("charges once when two attempts complete the same job at the same time", async () => {
      const { store, platform } = server;
      const transcripts = new TranscriptStore(store, () => new Date());
      const jobs = new TranscriptJobs(store, platform.credits, transcripts, () => new Date());
      const jobId = newId("job");
      const requestId = newId("req");
      await jobs.create({
        id: jobId,
        accountId: server.account.id,
        videoId: "file_0000000000000000",
        platform: "file",
        request: { video: "https://media.example.com/twice.mp3" },
        work: {},
        docsBaseUrl: server.baseUrl,
        callbackUrl: null,
        requestId,
        operation: "POST /transcripts/video",
      });
      const job = await jobs.find(jobId);
      if (!job) throw new Error("the job row was not written");
      const transcript: FullTranscript = {
        kind: "transcript",
        video_id: "file_0000000000000000",
        url: "https://media.example.com/twice.mp3",
        platform: "file",
        title: null,
        channel: null,
        duration: 11,
        language: "en",
        source: "audio",
        caption_kind: null,
        thumbnail_url: null,
        speakers: null,
        speech_engine: { engine: "sherpa-onnx", model: "zipformer-gigaspeech-3.3M" },
        text: "ask not",
        segments: [{ start: 0, duration: 1, text: "ask not" }],
      };
      const completion = { transcript, durationSeconds: 11, credits: 1, stored: { platform: "test", item: "twice" } };
      const outcomes = await Promise.all([jobs.complete(job, completion), jobs.complete(job, completion)]);
      expect(outcomes.map((outcome) => outcome.kind).sort()).toEqual(["already_finished", "completed"]);
      // A late attempt after the fact changes nothing either, failing included.
      expect(await jobs.complete(job, completion)).toEqual({ kind: "already_finished" });
      expect(await jobs.fail(job, { code: "no_speech", message: "late" })).toBe(false);
      const charges = (await ledgerOf(store, server.account.id)).filter((row) => row.request_id === requestId);
      expect(charges).toHaveLength(1);
      const finished = await jobs.find(jobId);
      expect(finished?.status).toBe("completed");
      const schemaErrors = verbatimValidator().errors("/components/schemas/FullTranscript", finished?.result);
      expect(schemaErrors).toEqual([]);
    });
  });
});
