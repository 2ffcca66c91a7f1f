// Preloaded into the compiled API process (`node --import <this, built> dist/main.js`) by
// bench/compiled-api.ts: answers the benchmark over bench/protocol.ts as bench/target-child.ts does
// (requests, statements and CPU while counting), for a server the benchmark did not build.
import { subscribe } from "node:diagnostics_channel";
import pg from "pg";
import { BenchCounting } from "./counting.ts";
import type { ChildMessage, ParentMessage } from "./protocol.ts";

/** How long the process may take to answer `GET /api/v2/health` after it starts. */
const startTimeoutMs = 120_000;

function send(message: ChildMessage): void {
  process.send?.(message);
}

const port = Number(process.env.PORT);
const apiKeys = JSON.parse(process.env.VERBATIM_BENCH_API_KEYS ?? "[]") as string[];

/** Admitted requests the sliding windows hold, read on PostgreSQL; PGlite's one session is the server's. */
async function windowRows(): Promise<number | null> {
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) return null;
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>(
      "select coalesce(sum(u.used), 0)::int as n from rate_windows w, verbatim_window_use(w.counts, w.latest, now()) u",
    );
    return rows[0]?.n ?? null;
  } finally {
    await client.end();
  }
}

const counting = new BenchCounting(send);
subscribe("http.server.request.start", () => counting.request());

process.on("message", (message: ParentMessage) => {
  if (message.type === "count-start") counting.start();
  else if (message.type === "count-stop") counting.stop(windowRows);
  else if (message.type === "close") process.kill(process.pid, "SIGTERM");
});
process.on("disconnect", () => process.kill(process.pid, "SIGTERM"));

async function announceWhenListening(): Promise<void> {
  const deadline = Date.now() + startTimeoutMs;
  while (Date.now() < deadline) {
    const answered = await fetch(`http://127.0.0.1:${port}/api/v2/health`).then(
      (response) => response.ok,
      () => false,
    );
    if (answered) {
      send({ type: "ready", port, apiKeys });
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  send({ type: "failed", message: `dist/main.js did not answer GET /api/v2/health on port ${port}` });
}

void announceWhenListening();
