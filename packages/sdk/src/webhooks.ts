import type { components } from "@verbatim/contract";
import { WebhookVerificationError as StandardWebhookError, Webhook } from "standardwebhooks";
import { WebhookVerificationError } from "./api-error.ts";

/** Any event Verbatim delivers by webhook: `transcript_job.completed`, `transcript_job.failed`, `monitor.videos`, `monitor.transcript`. */
export type WebhookEvent = components["schemas"]["WebhookEvent"];

/** The headers of a delivery: a fetch `Headers`, or Node's `req.headers`. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

/**
 * Verifies a delivery (Standard Webhooks) and answers its typed event. Pass the body exactly as
 * received (before any JSON parsing), the request's headers and the secret (`whsec_...`): the
 * account's for job callbacks, the monitor's for its events. A signature that does not match any
 * of the `webhook-signature` values, or a `webhook-timestamp` more than 5 minutes from now (a
 * replay), throws `WebhookVerificationError`.
 */
export function verifyWebhook(rawBody: string | Uint8Array, headers: WebhookHeaders, secret: string): WebhookEvent {
  const payload = typeof rawBody === "string" ? rawBody : new TextDecoder().decode(rawBody);
  let verifier: Webhook;
  try {
    verifier = new Webhook(secret);
  } catch (error) {
    throw new WebhookVerificationError("the webhook secret is not a whsec_ secret", { cause: error });
  }
  let event: unknown;
  try {
    event = verifier.verify(payload, signatureHeaders(headers));
  } catch (error) {
    if (error instanceof StandardWebhookError || error instanceof SyntaxError) {
      throw new WebhookVerificationError(`the webhook did not verify: ${error.message}`, { cause: error });
    }
    throw error;
  }
  if (typeof (event as { type?: unknown } | null)?.type !== "string") {
    throw new WebhookVerificationError("the webhook's body is not an event");
  }
  return event as WebhookEvent;
}

function signatureHeaders(headers: WebhookHeaders): Record<string, string> {
  const names = ["webhook-id", "webhook-timestamp", "webhook-signature"];
  const found: Record<string, string> = {};
  for (const name of names) {
    const value = headers instanceof Headers ? headers.get(name) : headerValue(headers, name);
    if (value !== null && value !== undefined) found[name] = value;
  }
  return found;
}

function headerValue(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const key = Object.keys(headers).find((candidate) => candidate.toLowerCase() === name);
  const value = key === undefined ? undefined : headers[key];
  return Array.isArray(value) ? value.join(" ") : value;
}
