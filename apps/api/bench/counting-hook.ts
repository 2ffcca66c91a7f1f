// Preloaded into the compiled API process (`node --import <this, built> dist/main.js`) by
// bench/compiled-api.ts: answers the benchmark over bench/protocol.ts as bench/target-child.ts does
// (requests, statements and CPU while counting), for a server the benchmark did not build.
import { subscribe } from "node:diagnostics_channel";
import pg from "pg";
import { processCpuMs } from "./machine.ts";
import type { ChildMessage, ParentMessage } from "./protocol.ts";
import { countQueries } from "./query-counter.ts";

/** How long the process may take to answer `GET /api/v2/health` after it starts. */
const startTimeoutMs = 120_000;

const queries = countQueries();
let counting = false;
let requests = 0;
let cpuAtStart = 0;
subscribe("http.server.request.start", () => {
  if (counting) requests += 1;
});

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

process.on("message", (message: ParentMessage) => {
  if (message.type === "count-start") {
    requests = 0;
    queries.reset();
    cpuAtStart = processCpuMs();
    counting = true;
    send({ type: "counting" });
  } else if (message.type === "count-stop") {
    counting = false;
    const counted = { requests, queries: queries.count, cpuMs: processCpuMs() - cpuAtStart };
    void windowRows().then(
      (rows) => send({ type: "counted", ...counted, windowRows: rows }),
      () => send({ type: "counted", ...counted, windowRows: null }),
    );
  } else if (message.type === "close") {
    process.kill(process.pid, "SIGTERM");
  }
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
