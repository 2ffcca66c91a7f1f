import { sql } from "drizzle-orm";

/** Accounts the load is spread over, one key per connection: a service serves many accounts at once. */
export const benchAccounts = Number(process.env.VERBATIM_BENCH_ACCOUNTS ?? 50);

/**
 * Benchmark-only setting: /me counts against the polling allowance (max(2 x rpm, 120) per minute),
 * which a load test exhausts in seconds even spread over many accounts, and a 429 is cheaper than a
 * 200. Plans are constants that `createPlatform` writes into `plans`, so the bench raises the scale
 * row in its own throwaway database afterwards; the full admission path still runs.
 */
export const unlimitedAllowances = sql`update plans set polls_per_minute = 100000000, requests_per_minute = 100000000 where name = 'scale'`;
