import { audioFixture } from "@verbatim/testkit/fake-podcast-host";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type GeneratedMedia, generatedMedia } from "../asr/generated-media.ts";
import { type AudioServer, startAudioServer } from "../audio/harness.ts";
import { type Loose, poll } from "../audio/requests.ts";
import { type Answer, send } from "../support/http.ts";
import { expectAnchorShape, expectDeprecated, expectV1Error } from "./support.ts";

/** Speech recognition through v1: the 202, then the job polled at its v1 path. */
describe("v1 jobs: POST /api/v1/transcripts/video 202, then GET /api/v1/transcripts/jobs/{jobId}", () => {
  let server: AudioServer;
  let media: GeneratedMedia;

  beforeAll(async () => {
    server = await startAudioServer({ inlineAudioSeconds: 0 });
    media = await generatedMedia();
    server.host.serveFile("/media/jfk.wav", audioFixture("whisper-cpp/jfk.wav"), "audio/wav");
    server.host.serveFile(
      "/media/silence.wav",
      await media.make("silence.wav", ["-f", "lavfi", "-i", "anullsrc=r=16000:cl=mono", "-t", "5"]),
      "audio/wav",
    );
  });
  afterAll(async () => {
    await server?.close();
    await media?.remove();
  });

  function startJob(path: string): Promise<Answer> {
    return send(server, {
      method: "POST",
      path: "/api/v1/transcripts/video",
      json: { video: server.host.url(path), ai_fallback: true },
    });
  }

  async function pollUntilFinished(pollUrl: string): Promise<Answer> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const answer = await poll(server, pollUrl);
      expect(answer.status, answer.text).toBe(200);
      expectDeprecated(answer);
      if ((answer.body as Loose).status !== "processing") return answer;
      expectAnchorShape("getTranscriptJob", answer);
      expect(answer.body).toEqual({
        ok: true,
        request_id: answer.headers.get("x-request-id"),
        status: "processing",
        job_id: expect.stringMatching(/^job_/),
        data: null,
      });
      if (Date.now() > deadline) throw new Error(`job still processing: ${answer.text}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  it("answers 202 with a v1 poll_url; the job completes with text and segments, charged once on delivery", async () => {
    const balance = await server.platform.credits.balance(server.account.id);
    const accepted = await startJob("/media/jfk.wav");
    expect(accepted.status, accepted.text).toBe(202);
    expectDeprecated(accepted);
    expectAnchorShape("fetchVideoTranscript", accepted);
    const body = accepted.body as Loose;
    expect(body).toEqual({
      ok: true,
      request_id: accepted.headers.get("x-request-id"),
      status: "processing",
      job_id: expect.stringMatching(/^job_[0-9A-Z]{26}$/),
      poll_url: `/api/v1/transcripts/jobs/${body.job_id}`,
      data: { kind: "transcript_job", video_id: expect.any(String), platform: "file" },
      usage: { credits_spent: 0, balance, bytes: 0 },
    });

    const finished = await pollUntilFinished(body.poll_url);
    expectAnchorShape("getTranscriptJob", finished);
    const job = finished.body as Loose;
    expect(job).toMatchObject({ ok: true, status: "completed", job_id: body.job_id });
    expect(job.data).toEqual({
      kind: "transcript",
      video_id: body.data.video_id,
      platform: "file",
      title: expect.anything(),
      thumbnailUrl: null,
      text: expect.stringMatching(/country/i),
      segments: expect.any(Array),
    });
    expect(job.usage).toEqual({
      credits_spent: 1,
      balance: (balance ?? 0) - 1,
      bytes: Buffer.byteLength(job.data.text),
    });

    const again = await poll(server, body.poll_url);
    expect((again.body as Loose).usage.credits_spent).toBe(1);
    expect(await server.platform.credits.balance(server.account.id)).toBe((balance ?? 0) - 1);

    const sameJobOnV2 = await poll(server, `/api/v2/transcripts/jobs/${body.job_id}`);
    expect((sameJobOnV2.body as Loose).data.text).toBe(job.data.text);
  });

  it("answers a failed job with ok false and a v1 error, nothing charged", async () => {
    const balance = await server.platform.credits.balance(server.account.id);
    const accepted = await startJob("/media/silence.wav");
    expect(accepted.status, accepted.text).toBe(202);
    const failed = await pollUntilFinished((accepted.body as Loose).poll_url);
    expect(failed.body).toEqual({
      ok: false,
      request_id: failed.headers.get("x-request-id"),
      status: "failed",
      job_id: (accepted.body as Loose).job_id,
      data: null,
      error: { code: "no_speech", message: expect.any(String) },
    });
    expectAnchorShape("getTranscriptJob", failed);
    expect(await server.platform.credits.balance(server.account.id)).toBe(balance);
  });

  it("answers an unknown job, or another account's, 404 invalid_request with reason not_found", async () => {
    const unknown = expectV1Error(
      await poll(server, "/api/v1/transcripts/jobs/job_01JD7XJ2Q4ZB8N6R0S2T4V6X8Y"),
      404,
      "invalid_request",
    );
    expect(unknown.reason).toBe("not_found");

    // A new address, so the job is not answered from the transcript stored by the first test.
    const accepted = await startJob("/media/jfk.wav?stranger");
    expect(accepted.status, accepted.text).toBe(202);
    const { key: stranger } = await server.platform.accounts.create({ plan: "pro", name: "stranger" });
    expectV1Error(await poll(server, (accepted.body as Loose).poll_url, stranger.key), 404, "invalid_request");
  });
});
