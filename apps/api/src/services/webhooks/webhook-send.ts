import { performance } from "node:perf_hooks";
import { eq } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { SourceError } from "../../sources/source-error.ts";
import type { Store } from "../../store/database.ts";
import { accounts, monitors } from "../../store/schema.ts";
import type { ClaimedDelivery } from "./webhook-claims.ts";

/** The request the deliverer hands its fetch: one signed POST that must not follow redirects. */
export interface WebhookFetchInit {
  method: "POST";
  headers: Record<string, string>;
  body: string;
  redirect: "manual";
  signal: AbortSignal;
}

/**
 * Sends one attempt: the public-address fetch (`createPublicFetch`), which throws a `SourceError`
 * `invalid_input` before connecting to a target the https and public-address rules refuse.
 */
export type WebhookFetch = (url: string, init: WebhookFetchInit) => Promise<Response>;

/** What came of one attempt. */
export interface AttemptOutcome {
  delivered: boolean;
  responseStatus: number | null;
  error: string | null;
  /** False when no later attempt can succeed (a refused target). */
  retryable: boolean;
  durationMs: number;
  /** No answer came at all (a timeout or a failed connection): what the circuit breaker counts. */
  unreachable: boolean;
}

export interface SendOptions {
  fetch: WebhookFetch;
  now: () => Date;
  /** How long the attempt may wait for the endpoint's answer. */
  attemptTimeoutMs: number;
}

/** Signs the delivery with `secret` (Standard Webhooks) and sends it once, reporting what came of it. */
export async function sendAttempt(
  delivery: Pick<ClaimedDelivery, "id" | "url" | "payload">,
  secret: string,
  options: SendOptions,
): Promise<AttemptOutcome> {
  const body = JSON.stringify(delivery.payload);
  const signedAt = options.now();
  const headers = {
    "content-type": "application/json",
    "user-agent": "Verbatim-Webhooks/1",
    "webhook-id": delivery.id,
    "webhook-timestamp": String(Math.floor(signedAt.getTime() / 1000)),
    "webhook-signature": new Webhook(secret).sign(delivery.id, signedAt, body),
  };
  const signal = AbortSignal.timeout(options.attemptTimeoutMs);
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const response = await options.fetch(delivery.url, {
      method: "POST",
      headers,
      body,
      redirect: "manual",
      signal,
    });
    const durationMs = elapsed();
    // The answer's body is not needed; cancelling it frees the connection.
    await response.body?.cancel().catch(() => undefined);
    const status = response.status;
    if (status >= 200 && status < 300) {
      return {
        delivered: true,
        responseStatus: status,
        error: null,
        retryable: true,
        durationMs,
        unreachable: false,
      };
    }
    const error =
      status >= 300 && status < 400
        ? `answered HTTP ${status}, a redirect${redirectTarget(response)}, which is not followed`
        : `answered HTTP ${status}`;
    return { delivered: false, responseStatus: status, error, retryable: true, durationMs, unreachable: false };
  } catch (cause) {
    const durationMs = elapsed();
    // A refused scheme or address: no retry can make the target acceptable.
    if (cause instanceof SourceError && cause.kind === "invalid_input") {
      return {
        delivered: false,
        responseStatus: null,
        error: `refused: ${cause.message}`,
        retryable: false,
        durationMs,
        unreachable: false,
      };
    }
    const timedOut = signal.aborted || (cause instanceof SourceError && cause.kind === "timeout");
    const error = timedOut
      ? `no answer within ${options.attemptTimeoutMs} ms (timeout)`
      : `request failed: ${describeFailure(cause)}`;
    return { delivered: false, responseStatus: null, error, retryable: true, durationMs, unreachable: true };
  }
}

/**
 * A monitor's event is signed with the monitor's secret, any other with the account's; `null`
 * when the monitor was deleted after the claim, taking the delivery with it.
 */
export async function signingSecretOf(store: Store, delivery: ClaimedDelivery): Promise<string | null> {
  const [row] = delivery.monitorId
    ? await store.db
        .select({ secret: monitors.webhookSecret })
        .from(monitors)
        .where(eq(monitors.id, delivery.monitorId))
    : await store.db
        .select({ secret: accounts.webhookSecret })
        .from(accounts)
        .where(eq(accounts.id, delivery.accountId));
  if (row) return row.secret;
  if (delivery.monitorId) return null;
  throw new Error(`No account ${delivery.accountId} for webhook delivery ${delivery.id}.`);
}

function redirectTarget(response: Response): string {
  const location = response.headers.get("location");
  return location ? ` to ${location}` : "";
}

/** fetch reports a network failure as "fetch failed" with the system error as its cause; the public fetch says it in words. */
function describeFailure(error: unknown): string {
  if (error instanceof SourceError) return error.message;
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause;
  return cause instanceof Error ? cause.message : error.message;
}
