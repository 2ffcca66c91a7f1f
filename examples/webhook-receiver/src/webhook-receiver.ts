import { verifyWebhook, type WebhookEvent, WebhookVerificationError } from "@verbatim/sdk";
import express, { type Express } from "express";

export interface WebhookReceiverOptions {
  /** The signing secret (`whsec_...`): the account's for job callbacks, a monitor's for its events. */
  secret: string;
  /**
   * Called with each verified event before the delivery is answered: a rejection answers 500
   * and Verbatim delivers the event again later. Keep it quick (store or enqueue the event), as
   * a delivery that takes more than 10 s counts as failed.
   */
  onEvent: (event: WebhookEvent) => void | Promise<void>;
  /** Default: `/webhooks`. */
  path?: string;
}

/**
 * An Express app that receives Verbatim's webhooks on `POST path`: it verifies each delivery's
 * Standard Webhooks signature against the raw body, answers 400 when it does not verify, and
 * otherwise hands the typed event to `onEvent` and answers 204.
 */
export function createWebhookReceiver({ secret, onEvent, path = "/webhooks" }: WebhookReceiverOptions): Express {
  const app = express();
  // The signature covers the body's exact bytes, so it is read raw; `verifyWebhook` parses it after checking.
  app.post(path, express.raw({ type: "*/*", limit: "10mb" }), async (req, res) => {
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    let event: WebhookEvent;
    try {
      event = verifyWebhook(body, req.headers, secret);
    } catch (error) {
      if (!(error instanceof WebhookVerificationError)) throw error;
      res.status(400).json({ error: error.message });
      return;
    }
    await onEvent(event);
    res.status(204).end();
  });
  return app;
}

/** One line about an event, for logs. */
export function describeEvent(event: WebhookEvent): string {
  switch (event.type) {
    case "transcript_job.completed":
      return `${event.type} ${event.job_id}: ${event.data.title ?? event.data.video_id}, ${words(event.data.text)} words`;
    case "transcript_job.failed":
      return `${event.type} ${event.job_id}: ${event.error.code}`;
    case "monitor.videos":
      return `${event.type} ${event.monitor.id}: ${event.data.videos.length} new on ${event.monitor.target} (${event.data.videos.map((video) => video.videoId).join(", ")})`;
    case "monitor.transcript": {
      const { video_id, outcome, transcript, error } = event.data;
      const detail = transcript ? `, ${words(transcript.text)} words` : error ? `, ${error.code}` : "";
      return `${event.type} ${event.monitor.id}: ${video_id} ${outcome}${detail}`;
    }
    case "live.started":
      return `${event.type} ${event.session_id}: ${event.source.url}`;
    case "live.segments":
      return `${event.type} ${event.session_id}: ${event.segments.length} segments, ${words(event.segments.map((segment) => segment.text).join(" "))} words`;
    case "live.gap":
      return `${event.type} ${event.session_id}: ${event.from} s to ${event.to} s not transcribed (${event.reason})`;
    case "live.ended":
      return `${event.type} ${event.session_id}: ${event.reason}, ${event.audio_seconds} s, ${event.credits_spent} credits`;
    case "live.failed":
      return `${event.type} ${event.session_id}: ${event.error.code}`;
  }
}

function words(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}
