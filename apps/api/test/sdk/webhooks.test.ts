import { verifyWebhook, WebhookVerificationError } from "@verbatim/sdk";
import { eventually } from "@verbatim/testkit/eventually";
import { audioFixture } from "@verbatim/testkit/fake-podcast-host";
import { channelUrl, newUploads } from "@verbatim/testkit/recorded-channel";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { type AudioServer, startAudioServer } from "../audio/harness.ts";
import { type MonitorHarness, startMonitorHarness } from "../monitors/harness.ts";
import { sdkFor } from "../support/sdk.ts";
import { serverStartTimeoutMs } from "../support/youtube-server.ts";
import { type ReceivedRequest, type Receiver, startReceiver } from "../webhooks/receiver.ts";

// Deliveries the live server really sent to a loopback receiver, verified with the SDK's
// verifyWebhook as a customer's endpoint would: the body as received, the headers, the secret.

afterEach(() => {
  vi.useRealTimers();
});

function verificationErrorOf(verify: () => unknown): unknown {
  try {
    verify();
  } catch (error) {
    return error;
  }
  throw new Error("the delivery verified");
}

describe("a monitor's delivery, signed with the monitor's own secret", () => {
  let h: MonitorHarness;
  let secret: string;
  let eventId: string;
  let delivery: ReceivedRequest;

  beforeAll(async () => {
    h = await startMonitorHarness();
    const verbatim = sdkFor(h.server);
    const created = await verbatim.monitors.create({ target: channelUrl, webhook_url: h.receiver.url("/monitor") });
    secret = created.data.webhook_secret;
    h.publishNewUploads();
    eventId = (await verbatim.monitors.check(created.data.id)).data.event?.id ?? "";
    delivery = await eventually(() => h.receiver.requests.find((request) => request.path === "/monitor"));
  }, serverStartTimeoutMs);
  afterAll(async () => h?.close());

  it("verifies the body as received with Node's headers, answering the typed monitor.videos event", () => {
    const event = verifyWebhook(delivery.body, delivery.headers, secret);
    expect(event).toEqual(JSON.parse(delivery.body));
    if (event.type !== "monitor.videos") throw new Error(`got ${event.type}`);
    expect(event.id).toBe(eventId);
    expect(event.data.videos.map((video) => video.videoId)).toEqual([...newUploads]);
  });

  it("verifies the body as bytes with fetch Headers too", () => {
    const headers = new Headers();
    for (const [name, value] of Object.entries(delivery.headers))
      if (typeof value === "string") headers.set(name, value);
    expect(verifyWebhook(Buffer.from(delivery.body), headers, secret)).toMatchObject({ id: eventId });
  });

  it("throws WebhookVerificationError for a tampered body", () => {
    const tampered = delivery.body.replace(newUploads[0], "dQw4w9WgXcQ");
    expect(tampered).not.toBe(delivery.body);
    expect(verificationErrorOf(() => verifyWebhook(tampered, delivery.headers, secret))).toBeInstanceOf(
      WebhookVerificationError,
    );
  });

  it("throws WebhookVerificationError for the untouched delivery once its timestamp is more than 5 minutes old", () => {
    const sentAt = Number(delivery.headers["webhook-timestamp"]) * 1000;
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(sentAt + 4 * 60_000);
    expect(verifyWebhook(delivery.body, delivery.headers, secret)).toMatchObject({ id: eventId });
    vi.setSystemTime(sentAt + 6 * 60_000);
    const error = verificationErrorOf(() => verifyWebhook(delivery.body, delivery.headers, secret));
    expect(error).toBeInstanceOf(WebhookVerificationError);
    expect((error as Error).message).toMatch(/timestamp/i);
  });

  it("throws WebhookVerificationError for the account's secret, another whsec_ secret, or one that is not a secret", async () => {
    const accountSecret = await h.server.platform.accounts.webhookSecret(h.server.account.id);
    const another = `whsec_${Buffer.from("not the monitor's secret at all").toString("base64")}`;
    for (const wrong of [accountSecret, another, "plain-text"]) {
      expect(
        verificationErrorOf(() => verifyWebhook(delivery.body, delivery.headers, wrong)),
        wrong,
      ).toBeInstanceOf(WebhookVerificationError);
    }
  });

  it("throws WebhookVerificationError without the signature header", () => {
    const { "webhook-signature": _signature, ...unsigned } = delivery.headers;
    expect(verificationErrorOf(() => verifyWebhook(delivery.body, unsigned, secret))).toBeInstanceOf(
      WebhookVerificationError,
    );
  });
});

describe("a speech job's callback, signed with the account's secret", () => {
  let server: AudioServer;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver();
    server = await startAudioServer({ inlineAudioSeconds: 0, deliverCallbacks: true });
    server.host.serveFile("/media/jfk.mp3", audioFixture("whisper-cpp/jfk.mp3"), "audio/mpeg");
  }, serverStartTimeoutMs);
  afterAll(async () => {
    await server?.close();
    await receiver?.close();
  });

  it("verifies the transcript_job.completed delivery, which carries the transcript waitForJob answers", async () => {
    const verbatim = sdkFor(server);
    const accepted = await verbatim.transcripts.video({
      video: server.host.url("/media/jfk.mp3"),
      callback_url: receiver.url("/job"),
    });
    if (!("job_id" in accepted)) throw new Error(`expected a job, got ${JSON.stringify(accepted)}`);
    const finished = await verbatim.transcripts.waitForJob(accepted, { pollInterval: 100 });
    const delivery = await eventually(() => receiver.requests.find((request) => request.path === "/job"));

    const secret = await server.platform.accounts.webhookSecret(server.account.id);
    const event = verifyWebhook(delivery.body, delivery.headers, secret);
    if (event.type !== "transcript_job.completed") throw new Error(`got ${event.type}`);
    expect(event).toMatchObject({ job_id: accepted.job_id, status: "completed" });
    expect(event.data).toEqual(finished.data);
    expect(
      verificationErrorOf(() => verifyWebhook(delivery.body.replace("completed", "failed"), delivery.headers, secret)),
    ).toBeInstanceOf(WebhookVerificationError);
  });
});
