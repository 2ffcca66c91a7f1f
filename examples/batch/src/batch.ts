import { setTimeout as delay } from "node:timers/promises";
import type { components, Verbatim } from "@verbatim/sdk";

/** One row of a batch answer: `ok`, `processing` (a speech recognition job) or `error`. */
export type BatchRow = components["schemas"]["BatchRow"];

export interface BatchOptions {
  /** YouTube video ids or URLs, up to the plan's batch cap (50 on Free, Basic and Pro). */
  videoIds: string[];
  print: (line: string) => void;
  /** The longest wait before resubmitting, whatever a row's `retry_after` asks. Default: 60 s. */
  maxRetryDelayMs?: number;
  /** Waits that many milliseconds; tests pass one that returns at once. */
  sleep?: (ms: number) => Promise<void>;
}

/**
 * Fetches the transcripts of `videoIds` in one batch and prints a line per row. Rows that failed
 * transiently (an upstream error, a timeout, a busy account) carry `retry_after`: they are sent
 * again, once, in a second batch after the longest of those delays. Answers the rows in the order
 * of `videoIds`, each as its last attempt left it.
 */
export async function fetchBatch(
  verbatim: Verbatim,
  { videoIds, print, maxRetryDelayMs = 60_000, sleep = (ms) => delay(ms) }: BatchOptions,
): Promise<BatchRow[]> {
  const rows = await sendBatch(verbatim, videoIds, print);
  const retryable = rows.filter(
    (row): row is Extract<BatchRow, { outcome: "error" }> & { retry_after: number } =>
      row.outcome === "error" && row.retry_after !== undefined,
  );
  if (retryable.length === 0) return rows;

  const delayMs = Math.min(Math.max(...retryable.map((row) => row.retry_after)) * 1000, maxRetryDelayMs);
  print(`retrying ${plural(retryable.length, "row")} in ${delayMs / 1000} s`);
  await sleep(delayMs);
  const retried = await sendBatch(
    verbatim,
    retryable.map((row) => row.input),
    print,
  );
  const retryOf = new Map<BatchRow, BatchRow | undefined>(retryable.map((row, index) => [row, retried[index]]));
  return rows.map((row) => retryOf.get(row) ?? row);
}

async function sendBatch(verbatim: Verbatim, videoIds: string[], print: (line: string) => void): Promise<BatchRow[]> {
  const { data, usage } = await verbatim.transcripts.batch({ video_ids: videoIds });
  for (const row of data.results) print(describeRow(row));
  print(`${plural(usage.credits_spent, "credit")} spent, balance ${usage.balance ?? "unlimited"}`);
  return data.results;
}

function describeRow(row: BatchRow): string {
  switch (row.outcome) {
    case "ok":
      return `ok          ${row.input}  ${row.title ?? row.video_id} (${plural(row.segments.length, "segment")}, ${row.source})`;
    case "processing":
      return `processing  ${row.input}  job ${row.job_id}`;
    case "error": {
      const retry = row.retry_after === undefined ? "" : ` (retry after ${row.retry_after} s)`;
      return `error       ${row.input}  ${row.error.code}: ${row.error.message}${retry}`;
    }
  }
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}
