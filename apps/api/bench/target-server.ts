// The child process of bench/run.ts: serves `GET /api/v2/me` (the real API) or a bare Express route
// answering the same body, through bench/target-child.ts.
import { sql } from "drizzle-orm";
import type { TargetSpec } from "./protocol.ts";
import { apiTarget, bareTarget, serveTarget, type Target } from "./target-child.ts";

/** Accounts the load is spread over, one key per connection: a service serves many accounts at once. */
const benchAccounts = Number(process.env.VERBATIM_BENCH_ACCOUNTS ?? 50);

async function buildTarget(spec: TargetSpec): Promise<Target> {
  if (spec.name === "bare") return bareTarget(spec.body, (app, answer) => app.get("/api/v2/me", answer));
  return apiTarget(spec, {
    accounts: benchAccounts,
    // Benchmark-only setting: /me counts against the polling allowance (max(2 x rpm, 120) per minute),
    // which a load test exhausts in seconds even spread over many accounts, and a 429 is cheaper than a
    // 200. Plans are constants that `createPlatform` writes into `plans`, so the bench raises the scale
    // row in its own throwaway database afterwards; the full admission path still runs.
    planSetting: sql`update plans set polls_per_minute = 100000000, requests_per_minute = 100000000 where name = 'scale'`,
    countWindowRows: true,
  });
}

await serveTarget(buildTarget);
