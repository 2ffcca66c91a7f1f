import { audioFixture } from "@verbatim/testkit/fake-podcast-host";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../src/logger.ts";
import { createWebhooks } from "../../src/services/webhooks/webhook-deliverer.ts";
import { JFK_REFERENCE, JFK_WER_LIMIT } from "../asr/generated-media.ts";
import { wordErrorRate } from "../asr/word-error-rate.ts";
import { ledgerOf } from "../platform/helpers.ts";
import { expectErrorEnvelope } from "../support/http.ts";
import { type AudioServer, startAudioServer } from "./harness.ts";
import { expectJobAccepted, fetchTranscript, type Loose, poll, pollUntilFinished } from "./requests.ts";

const fixtures = [
  { name: "jfk.wav", path: "whisper-cpp/jfk.wav", type: "audio/wav" },
  { name: "jfk.mp3", path: "whisper-cpp/jfk.mp3", type: "audio/mpeg" },
  { name: "jfk.flac", path: "openai-whisper/jfk.flac", type: "audio/flac" },
];

describe("speech recognition as a job (inline off): POST 202, then GET /transcripts/jobs/{jobId}", () => {
  let server: AudioServer;

  beforeAll(async () => {
    server = await startAudioServer({
      inlineAudioSeconds: 0,
      webhooks: (store) => createWebhooks(store, { logger: createLogger("silent"), allowPrivateTargets: true }),
      // A name that points inward, as a DNS record of anyone's domain can.
      resolveAll: async (hostname) => {
        if (hostname === "inward.example.test") return [{ address: "127.0.0.1", family: 4 }];
        throw Object.assign(new Error(`${hostname} is not known`), { code: "ENOTFOUND" });
      },
    });
    for (const fixture of fixtures)
      server.host.serveFile(`/media/${fixture.name}`, audioFixture(fixture.path), fixture.type);
  });
  afterAll(() => server?.close());

  describe.each(fixtures)("$name", (fixture) => {
    let accepted: Awaited<ReturnType<typeof fetchTranscript>>;
    let pollUrl: string;
    let finished: Awaited<ReturnType<typeof pollUntilFinished>>;
    let balanceBefore: number | null;

    beforeAll(async () => {
      balanceBefore = await server.platform.credits.balance(server.account.id);
      accepted = await fetchTranscript(server, {
        video: server.host.url(`/media/${fixture.name}`),
        callback_url: "https://hooks.example.com/verbatim",
      });
      pollUrl = expectJobAccepted(accepted, { platform: "file", balance: balanceBefore });
      finished = await pollUntilFinished(server, pollUrl);
    });

    it("202 charges nothing; polls show processing with progress between 0 and 1, then completed", () => {
      for (const progress of finished.progress) {
        expect(progress).toBeGreaterThanOrEqual(0);
        expect(progress).toBeLessThanOrEqual(1);
      }
      const body = finished.answer.body as Loose;
      expect(body.ok).toBe(true);
      expect(body.status).toBe("completed");
      expect(body.job_id).toBe((accepted.body as Loose).job_id);
      expect(body.request_id).toBe(finished.answer.headers.get("x-request-id"));
    });

    it("200 completed carries the transcript with both text and segments: WER within the measured limit and the key phrase", () => {
      const data = (finished.answer.body as Loose).data;
      const wer = wordErrorRate(JFK_REFERENCE, data.text);
      console.info(`job ${fixture.name}: WER ${(wer * 100).toFixed(1)} %`);
      expect(wer, data.text).toBeLessThanOrEqual(JFK_WER_LIMIT);
      expect(data.text).toContain("what you can do for your country");
      expect(data.segments.map((segment: { text: string }) => segment.text).join(" ")).toBe(data.text);
      expect(data).toMatchObject({
        kind: "transcript",
        platform: "file",
        source: "audio",
        caption_kind: null,
        language: "en",
        speech_engine: {
          engine: "sherpa-onnx",
          model: "zipformer-gigaspeech-3.3M",
          decoding: "modified_beam_search/4",
        },
        video_id: (accepted.body as Loose).data.video_id,
      });
    });

    it("charges 1 credit on completion, once, under the request that made the job; polls are free", async () => {
      const body = finished.answer.body as Loose;
      expect(body.usage).toEqual({
        credits_spent: 1,
        balance: (balanceBefore ?? 0) - 1,
        bytes: Buffer.byteLength(body.data.text),
      });
      const requestId = (accepted.body as Loose).request_id;
      const charges = (await ledgerOf(server.store, server.account.id)).filter((row) => row.request_id === requestId);
      expect(charges).toEqual([expect.objectContaining({ delta: -1, balance_after: (balanceBefore ?? 0) - 1 })]);
      const again = await poll(server, pollUrl);
      expect(again.body).toMatchObject({ status: "completed", usage: body.usage });
      expect(await server.platform.credits.balance(server.account.id)).toBe((balanceBefore ?? 0) - 1);
    });

    it("enqueues the completion callback with the transcript, in the completing transaction", async () => {
      const jobId = (accepted.body as Loose).job_id;
      const rows = await server.store.query<{ event_type: string; url: string; payload: Loose }>(
        sql`select event_type, url, payload from webhook_deliveries where payload->>'job_id' = ${jobId}`,
      );
      expect(rows).toEqual([
        {
          event_type: "transcript_job.completed",
          url: "https://hooks.example.com/verbatim",
          payload: {
            type: "transcript_job.completed",
            job_id: jobId,
            status: "completed",
            data: (finished.answer.body as Loose).data,
          },
        },
      ]);
    });
  });

  describe("idempotency and the store", () => {
    it("replays the stored 202 for a repeated Idempotency-Key, making no second job", async () => {
      const video = server.host.url("/media/jfk.wav?replay");
      server.host.serveFile("/media/jfk.wav", audioFixture("whisper-cpp/jfk.wav"), "audio/wav");
      const headers = { "idempotency-key": "replay-audio-job-1" };
      const first = await fetchTranscript(server, { video }, headers);
      expect(first.status, first.text).toBe(202);
      const replay = await fetchTranscript(server, { video }, headers);
      expect(replay.status, replay.text).toBe(202);
      expect(replay.body).toEqual(first.body);
      expect(replay.headers.get("idempotent-replayed")).toBe("true");
      const [row] = await server.store.query<{ jobs: number }>(
        sql`select count(*)::int as jobs from transcript_jobs where video_id = ${(first.body as Loose).data.video_id}`,
      );
      expect(row?.jobs).toBe(1);
      await pollUntilFinished(server, (first.body as Loose).poll_url);
    });

    it("answers the same request after completion with 200 from the store, charged per started minute again", async () => {
      const before = await server.platform.credits.balance(server.account.id);
      const [jobsBefore] = await server.store.query<{ jobs: number }>(
        sql`select count(*)::int as jobs from transcript_jobs`,
      );
      const answer = await fetchTranscript(server, { video: server.host.url("/media/jfk.mp3"), timestamps: false });
      expect(answer.status, answer.text).toBe(200);
      const body = answer.body as Loose;
      expect(body.data).toMatchObject({ source: "audio", speech_engine: { engine: "sherpa-onnx" } });
      expect(body.data.text).toContain("what you can do for your country");
      expect(body.usage).toMatchObject({ credits_spent: 1, balance: (before ?? 0) - 1 });
      const [jobsAfter] = await server.store.query<{ jobs: number }>(
        sql`select count(*)::int as jobs from transcript_jobs`,
      );
      expect(jobsAfter).toEqual(jobsBefore);
    });
  });

  describe("400 invalid_request for a callback_url no delivery could reach, before any work", () => {
    it.each([
      ["http://hooks.example.com/plain", "must be an https URL"],
      ["https://127.0.0.1/hook", "must not name a loopback address"],
      ["https://10.1.2.3/hook", "must not name a private address"],
      ["https://[::1]/hook", "must not name a loopback address"],
      ["https://localhost/hook", "must not name this machine (localhost)"],
      ["https://localhost./hook", "must not name this machine (localhost)"],
      [
        "https://inward.example.test/hook",
        "must not name a loopback address (inward.example.test resolves to 127.0.0.1)",
      ],
    ])("%s", async (callbackUrl, message) => {
      const requestsBefore = server.host.requests.length;
      const answer = await fetchTranscript(server, {
        video: server.host.url("/media/jfk.wav"),
        callback_url: callbackUrl,
      });
      expectErrorEnvelope(answer, 400, "invalid_request");
      expect((answer.body as Loose).error.issues).toEqual([{ path: "/body/callback_url", message }]);
      expect(server.host.requests.length).toBe(requestsBefore);
    });
  });

  describe("404 not_found", () => {
    it("for an unknown job id", async () => {
      expectErrorEnvelope(
        await poll(server, "/api/v2/transcripts/jobs/job_01JD7XJ2Q4ZB8N6R0S2T4V6X8Y"),
        404,
        "not_found",
      );
    });

    it("for another account's job", async () => {
      const accepted = await fetchTranscript(server, { video: server.host.url("/media/jfk.flac?other") });
      const pollUrl = expectJobAccepted(accepted, {
        platform: "file",
        balance: await server.platform.credits.balance(server.account.id),
      });
      const { key } = await server.platform.accounts.create({ plan: "pro", name: "someone else" });
      expectErrorEnvelope(await poll(server, pollUrl, key.key), 404, "not_found");
      await pollUntilFinished(server, pollUrl);
    });
  });
});
