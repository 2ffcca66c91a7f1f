import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Verbatim, type WebhookEvent } from "@verbatim/sdk";
import { startVerbatim, type VerbatimService } from "@verbatim/testkit";
import { eventually } from "@verbatim/testkit/eventually";
import { audioFixture, type FakePodcastHost, startFakePodcastHost } from "@verbatim/testkit/fake-podcast-host";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWebhookReceiver, describeEvent } from "../src/webhook-receiver.ts";

let host: FakePodcastHost;
let server: VerbatimService;
let receiver: Server;
let hookUrl: string;
const events: WebhookEvent[] = [];
/** The status of each answer the receiver gave. */
const answered: number[] = [];

beforeAll(async () => {
  host = await startFakePodcastHost();
  host.serveFile("/media/jfk.wav", audioFixture("whisper-cpp/jfk.wav"), "audio/wav");
  // Inline recognition off: the recording becomes a job, whose outcome is delivered to `callback_url`.
  server = await startVerbatim({ from: import.meta.url, credits: 10, env: { VERBATIM_INLINE_AUDIO_SECONDS: "0" } });
  const secret = await server.webhookSecret();
  const app = createWebhookReceiver({ secret, onEvent: (event) => void events.push(event) });
  receiver = createServer((req, res) => {
    res.on("finish", () => answered.push(res.statusCode));
    app(req, res);
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks`;
});
afterAll(async () => {
  await server?.close();
  await host?.close();
  receiver?.closeAllConnections();
  await new Promise((resolve) => receiver?.close(resolve));
});

describe("the webhook-receiver example", () => {
  it("receives a job's transcript_job.completed callback, verified and typed, and answers 204", async () => {
    const verbatim = new Verbatim({ apiKey: server.apiKey, baseUrl: server.baseUrl });
    const accepted = await verbatim.transcripts.video({
      video: host.url("/media/jfk.wav"),
      callback_url: hookUrl,
    });
    if (!("job_id" in accepted)) throw new Error(`expected a job, got ${JSON.stringify(accepted)}`);

    const event = await eventually(() => events.find((candidate) => "job_id" in candidate), 30_000);
    expect(event).toMatchObject({
      type: "transcript_job.completed",
      job_id: accepted.job_id,
      status: "completed",
    });
    const text = "data" in event && event.data && "text" in event.data ? String(event.data.text) : "";
    expect(text.toLowerCase()).toContain("what you can do for your country");
    expect(describeEvent(event)).toMatch(
      new RegExp(`^transcript_job\\.completed ${accepted.job_id}: jfk\\.wav, \\d+ words$`),
    );
    expect(await eventually(() => answered[0], 30_000)).toBe(204);
  });

  it("answers 400 to a forged delivery and hands it to nobody", async () => {
    const before = { events: events.length, answers: answered.length };
    const forged = await fetch(hookUrl, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "webhook-id": "evt_01J00000000000000000000000",
        "webhook-timestamp": String(Math.floor(Date.now() / 1000)),
        "webhook-signature": `v1,${Buffer.alloc(32, 7).toString("base64")}`,
      },
      body: JSON.stringify({ type: "transcript_job.completed", job_id: "job_forged", status: "completed" }),
    });
    expect(forged.status).toBe(400);
    expect(await forged.json()).toEqual({ error: expect.stringMatching(/^the webhook did not verify/) });
    const unsigned = await fetch(hookUrl, { method: "POST", body: "{}" });
    expect(unsigned.status).toBe(400);
    expect(events).toHaveLength(before.events);
    expect(answered.slice(before.answers)).toEqual([400, 400]);
  });
});
