import { expect } from "vitest";
import { type Answer, send } from "../support/http.ts";
import type { TestServer } from "../support/server.ts";

/** The JSON body of an answer, for reading fields the test then asserts. */
// biome-ignore lint/suspicious/noExplicitAny: test bodies are read loosely and asserted field by field.
export type Loose = any;

/** `POST /api/v2/transcripts/video` with the account's key. */
export function fetchTranscript(
  server: TestServer,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<Answer> {
  return send(server, { method: "POST", path: "/api/v2/transcripts/video", json: body, headers });
}

/** `GET` of a poll URL (`/api/v2/transcripts/jobs/...`). */
export function poll(server: TestServer, pollUrl: string, apiKey?: string): Promise<Answer> {
  return send(server, {
    method: "GET",
    path: pollUrl,
    ...(apiKey ? { headers: { authorization: `Bearer ${apiKey}` } } : {}),
  });
}

/**
 * Polls until the job leaves `processing`, every `intervalMs`; answers the last poll and every
 * progress value seen. Several jobs polled at once share the account's polling allowance.
 */
export async function pollUntilFinished(
  server: TestServer,
  pollUrl: string,
  timeoutMs = 30_000,
  intervalMs = 250,
): Promise<{ answer: Answer; progress: number[] }> {
  const deadline = Date.now() + timeoutMs;
  const progress: number[] = [];
  for (;;) {
    const answer = await poll(server, pollUrl);
    expect(answer.status, answer.text).toBe(200);
    const body = answer.body as Loose;
    if (body.status !== "processing") return { answer, progress };
    if (typeof body.progress === "number") progress.push(body.progress);
    if (Date.now() > deadline) throw new Error(`job still processing after ${timeoutMs} ms: ${answer.text}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Asserts the 202 of docs/decisions.md rule 13 exactly, and answers its poll URL. */
export function expectJobAccepted(
  answer: Answer,
  expected: { platform: string; balance: number | null; videoId?: string },
): string {
  expect(answer.status, answer.text).toBe(202);
  const body = answer.body as Loose;
  expect(body, answer.text).toEqual({
    ok: true,
    request_id: answer.headers.get("x-request-id"),
    status: "processing",
    job_id: expect.stringMatching(/^job_[0-9A-Z]{26}$/),
    poll_url: `/api/v2/transcripts/jobs/${body.job_id}`,
    data: {
      kind: "transcript_job",
      video_id: expected.videoId ?? expect.stringMatching(/^(file|pod)_/),
      platform: expected.platform,
    },
    usage: { credits_spent: 0, balance: expected.balance, bytes: 0 },
  });
  return body.poll_url as string;
}
