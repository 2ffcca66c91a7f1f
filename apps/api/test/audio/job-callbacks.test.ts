import { errorTable } from "@verbatim/contract";
import { audioFixture } from "@verbatim/testkit/fake-podcast-host";
import { sql } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../src/logger.ts";
import { createWebhooks, type Webhooks } from "../../src/services/webhooks/webhook-deliverer.ts";
import { WebhookLog } from "../../src/services/webhooks/webhook-log.ts";
import { type GeneratedMedia, generatedMedia } from "../asr/generated-media.ts";
import type { Answer } from "../support/http.ts";
import { type ReceivedRequest, type Receiver, startReceiver } from "../webhooks/receiver.ts";
import { type AudioServer, startAudioServer } from "./harness.ts";
import { expectJobAccepted, fetchTranscript, type Loose, poll, pollUntilFinished } from "./requests.ts";

/** What the job and its charge looked like while one delivery attempt was in flight. */
interface JobSnapshot {
  attempt: number;
  poll: Answer;
  charges: number;
}

/**
 * Job callbacks end to end, wired as main.ts wires them: one `createWebhooks` deliverer is the
 * job service's outbox and is started beside the workers. `allowPrivateTargets` (the route's
 * `allowPrivateCallbackTargets` and the deliverer's) admits the plain-http loopback receiver, as
 * docs/decisions.md rule 13 says `VERBATIM_ALLOW_PRIVATE_TARGETS=1` does, so no TLS is needed.
 */
describe("job callbacks (inline off): POST 202 with callback_url, then one signed Standard Webhooks delivery", () => {
  let server: AudioServer;
  let webhooks: Webhooks;
  let receiver: Receiver;
  let media: GeneratedMedia;
  let secret: string;
  const flakySnapshots: JobSnapshot[] = [];
  let flakyPollUrl: string | undefined;

  beforeAll(async () => {
    media = await generatedMedia();
    server = await startAudioServer({
      inlineAudioSeconds: 0,
      allowPrivateCallbackTargets: true,
      webhooks: (store) => {
        webhooks = createWebhooks(store, {
          logger: createLogger("silent"),
          allowPrivateTargets: true,
          retryDelaysMs: [50, 50, 50],
          pollIntervalMs: 50,
        });
        return webhooks;
      },
    });
    webhooks.start();
    server.host.serveFile("/media/jfk.wav", audioFixture("whisper-cpp/jfk.wav"), "audio/wav");
    server.host.serveFile(
      "/media/silence.wav",
      await media.make("silence.wav", ["-f", "lavfi", "-i", "anullsrc=r=16000:cl=mono", "-t", "5"]),
      "audio/wav",
    );
    secret = await server.platform.accounts.webhookSecret(server.account.id);
    receiver = await startReceiver(async (request) => {
      if (request.path !== "/hooks/flaky") return { status: 200 };
      const attempt = receiver.requests.filter((seen) => seen.path === "/hooks/flaky").length;
      // While the endpoint is failing, the job must already be finished and charged, and stay so.
      if (flakyPollUrl) flakySnapshots.push(await snapshot(attempt, flakyPollUrl));
      return { status: attempt <= 2 ? 500 : 200 };
    });
  });

  afterAll(async () => {
    // The deliverer first: an attempt in flight must be recorded before the store closes.
    await webhooks?.stop();
    await server?.close();
    await receiver?.close();
    await media?.remove();
  });

  async function snapshot(attempt: number, pollUrl: string): Promise<JobSnapshot> {
    const answer = await poll(server, pollUrl);
    return { attempt, poll: answer, charges: await chargesOf((answer.body as Loose).job_id) };
  }

  /** Ledger rows under the request that made the job: charged once means exactly one. */
  async function chargesOf(jobId: string): Promise<number> {
    const [row] = await server.store.query<{ charges: number }>(sql`
      select count(*)::int as charges from credit_ledger l join transcript_jobs j
        on l.account_id = j.account_id and l.request_id = j.request_id
       where j.id = ${jobId}`);
    return row?.charges ?? 0;
  }

  /** Starts a job for `path` whose callback goes to the receiver's `hookPath`; answers its 202 body and poll URL. */
  async function startJob(path: string, hookPath: string): Promise<{ accepted: Loose; pollUrl: string }> {
    const answer = await fetchTranscript(server, {
      video: server.host.url(path),
      callback_url: receiver.url(hookPath),
    });
    const pollUrl = expectJobAccepted(answer, {
      platform: "file",
      balance: await server.platform.credits.balance(server.account.id),
    });
    return { accepted: answer.body, pollUrl };
  }

  /** Waits until the delivery of this job leaves `pending`, and answers its row of the operator's log. */
  async function settledDelivery(jobId: string, timeoutMs = 10_000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const [row] = await server.store.query<{ id: string; status: string }>(
        sql`select id, status from webhook_deliveries where payload->>'job_id' = ${jobId}`,
      );
      if (row && row.status !== "pending") {
        const log = new WebhookLog(server.store, () => new Date());
        const view = (await log.list(server.account.id, { limit: 50 })).deliveries.find(
          (delivery) => delivery.id === row.id,
        );
        if (!view) throw new Error(`delivery ${row.id} missing from the webhook log`);
        return view;
      }
      if (Date.now() > deadline) throw new Error(`delivery for ${jobId} still ${row?.status ?? "absent"}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  function requestsTo(hookPath: string): ReceivedRequest[] {
    return receiver.requests.filter((request) => request.path === hookPath);
  }

  /** Verifies the Standard Webhooks signature with the account's secret, as a receiver would; answers the payload. */
  function verified(request: ReceivedRequest): Loose {
    const headers = {
      "webhook-id": String(request.headers["webhook-id"]),
      "webhook-timestamp": String(request.headers["webhook-timestamp"]),
      "webhook-signature": String(request.headers["webhook-signature"]),
    };
    expect(headers["webhook-id"]).toMatch(/^evt_[0-9A-Z]{26}$/);
    expect(headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(Math.abs(Number(headers["webhook-timestamp"]) - request.receivedAt / 1000)).toBeLessThan(60);
    expect(request.headers["content-type"]).toBe("application/json");
    const payload = new Webhook(secret).verify(request.body, headers);
    expect(payload).toEqual(JSON.parse(request.body));
    return payload;
  }

  describe("transcript_job.completed", () => {
    let accepted: Loose;
    let finished: Answer;
    let delivered: ReceivedRequest;

    beforeAll(async () => {
      const job = await startJob("/media/jfk.wav", "/hooks/completed");
      accepted = job.accepted;
      finished = (await pollUntilFinished(server, job.pollUrl)).answer;
      const view = await settledDelivery(accepted.job_id);
      expect(view.status).toBe("delivered");
      [delivered] = requestsTo("/hooks/completed") as [ReceivedRequest];
    });

    it("is delivered once, to the callback_url, and its signature verifies with the account's whsec_ secret", () => {
      expect(secret).toMatch(/^whsec_/);
      expect(requestsTo("/hooks/completed")).toHaveLength(1);
      expect(delivered.headers["user-agent"]).toBe("Verbatim-Webhooks/1");
      verified(delivered);
    });

    it("carries {type, job_id, status, data} with the transcript GET /transcripts/jobs/{id} answers", () => {
      const poll = finished.body as Loose;
      expect(poll.status, finished.text).toBe("completed");
      const payload = verified(delivered);
      expect(payload).toEqual({
        type: "transcript_job.completed",
        job_id: accepted.job_id,
        status: "completed",
        data: poll.data,
      });
      expect(payload.data.text).toContain("what you can do for your country");
      expect(payload.data).toMatchObject({ kind: "transcript", source: "audio", video_id: accepted.data.video_id });
    });

    it("fails verification when the body or the secret is not the signed one", () => {
      const headers = {
        "webhook-id": String(delivered.headers["webhook-id"]),
        "webhook-timestamp": String(delivered.headers["webhook-timestamp"]),
        "webhook-signature": String(delivered.headers["webhook-signature"]),
      };
      expect(() => new Webhook(secret).verify(delivered.body.replace("completed", "failed"), headers)).toThrow();
      const otherSecret = `whsec_${Buffer.from("not the account's secret").toString("base64")}`;
      expect(() => new Webhook(otherSecret).verify(delivered.body, headers)).toThrow();
    });
  });

  describe("500, 500, then 200: retried with the same webhook-id, the job untouched", () => {
    let accepted: Loose;
    let pollUrl: string;
    let completed: Loose;

    beforeAll(async () => {
      // Another URL of the same media: a new job, not an answer from the transcript store.
      const job = await startJob("/media/jfk.wav?flaky", "/hooks/flaky");
      accepted = job.accepted;
      pollUrl = job.pollUrl;
      flakyPollUrl = pollUrl;
      completed = (await pollUntilFinished(server, pollUrl)).answer.body;
      await settledDelivery(accepted.job_id);
    });

    it("makes three attempts, each signed, all with the same webhook-id and body", () => {
      const attempts = requestsTo("/hooks/flaky");
      expect(attempts).toHaveLength(3);
      const payloads = attempts.map(verified);
      expect(new Set(attempts.map((attempt) => attempt.headers["webhook-id"])).size).toBe(1);
      for (const payload of payloads) {
        expect(payload).toEqual({
          type: "transcript_job.completed",
          job_id: accepted.job_id,
          status: "completed",
          data: completed.data,
        });
      }
      // The schedule's 50 ms passes between an answer and the next attempt.
      for (const [index, attempt] of attempts.entries()) {
        if (index === 0) continue;
        expect(attempt.receivedAt - (attempts[index - 1] as ReceivedRequest).receivedAt).toBeGreaterThanOrEqual(50);
      }
    });

    it("logs 500, 500, 200 in webhook_attempts and shows the delivery delivered after 3 attempts", async () => {
      const view = await settledDelivery(accepted.job_id);
      expect(view.id).toBe(requestsTo("/hooks/flaky")[0]?.headers["webhook-id"]);
      const log = await server.store.query<{ attempt: number; response_status: number | null; error: string | null }>(
        sql`select attempt, response_status, error from webhook_attempts where delivery_id = ${view.id} order by attempt`,
      );
      expect(log).toEqual([
        { attempt: 1, response_status: 500, error: "answered HTTP 500" },
        { attempt: 2, response_status: 500, error: "answered HTTP 500" },
        { attempt: 3, response_status: 200, error: null },
      ]);
      expect(view).toMatchObject({
        event_type: "transcript_job.completed",
        url: receiver.url("/hooks/flaky"),
        status: "delivered",
        next_attempt_at: null,
        delivered_at: expect.any(String),
      });
      expect(view.attempts.map(({ attempt, response_status, error }) => ({ attempt, response_status, error }))).toEqual(
        log,
      );
    });

    it("keeps the job completed and charged exactly once during and after the failed attempts", async () => {
      expect(flakySnapshots.map((seen) => seen.attempt)).toEqual([1, 2, 3]);
      for (const seen of flakySnapshots) {
        expect(seen.poll.status, seen.poll.text).toBe(200);
        expect(seen.poll.body, seen.poll.text).toMatchObject({
          ok: true,
          status: "completed",
          job_id: accepted.job_id,
          data: completed.data,
          usage: completed.usage,
        });
        expect(seen.charges).toBe(1);
      }
      const after = await poll(server, pollUrl);
      expect(after.body, after.text).toMatchObject({ status: "completed", usage: completed.usage });
      expect(completed.usage.credits_spent).toBe(1);
      expect(await chargesOf(accepted.job_id)).toBe(1);
    });
  });

  describe("transcript_job.failed", () => {
    it("delivers the failure of a silent file (no_speech 4105) with error code and number, signed", async () => {
      const chargesBefore = await server.store.query<{ n: number }>(
        sql`select count(*)::int as n from credit_ledger where account_id = ${server.account.id}`,
      );
      const { accepted, pollUrl } = await startJob("/media/silence.wav", "/hooks/failed");
      const finished = (await pollUntilFinished(server, pollUrl)).answer;
      const failed = finished.body as Loose;
      expect(failed, finished.text).toMatchObject({ ok: false, status: "failed", job_id: accepted.job_id });
      const view = await settledDelivery(accepted.job_id);
      expect(view).toMatchObject({ event_type: "transcript_job.failed", status: "delivered" });
      expect(view.attempts).toHaveLength(1);

      const [delivered, ...more] = requestsTo("/hooks/failed");
      expect(more).toEqual([]);
      const payload = verified(delivered as ReceivedRequest);
      expect(errorTable.no_speech.number).toBe(4105);
      expect(payload).toEqual({
        type: "transcript_job.failed",
        job_id: accepted.job_id,
        status: "failed",
        error: {
          code: "no_speech",
          number: 4105,
          message: expect.stringMatching(/\S/),
          docs: `${server.baseUrl}/docs/errors/no_speech`,
        },
      });
      expect(payload.error).toEqual(failed.error);
      expect(
        await server.store.query<{ n: number }>(
          sql`select count(*)::int as n from credit_ledger where account_id = ${server.account.id}`,
        ),
      ).toEqual(chargesBefore);
    });
  });
});
