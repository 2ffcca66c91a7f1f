/** A plan's limits and monthly credits (docs/decisions.md, rule 5). */
export interface Plan {
  name: PlanName;
  /** Requests per sliding 60-second window, shared by every key of the account. */
  requestsPerMinute: number;
  /** Extraction requests that may run at once. */
  extractionSlots: number;
  /** Workers a batch may use (each holds one slot). */
  batchWorkers: number;
  /** Items one batch may hold. */
  maxBatchItems: number;
  /** Credits granted each month. */
  monthlyCredits: number;
  /**
   * Speech recognition jobs of the account queued or running at once, beyond which new ones get
   * 429: one account's backlog cannot fill the queue every account shares.
   */
  maxUnfinishedJobs: number;
  /** API keys of the account that are not revoked or being rotated; creating another gets 400. */
  maxActiveKeys: number;
  /** Live sessions of the account `waiting` or `live` at once, across every process; another gets 429. */
  maxLiveSessions: number;
  /** The most minutes of audio one live session may transcribe: the default and the bound of its `max_minutes`. */
  maxLiveMinutes: number;
}

export const planNames = ["free", "basic", "pro", "mega", "scale"] as const;

export type PlanName = (typeof planNames)[number];

export const plans: Readonly<Record<PlanName, Plan>> = {
  free: {
    name: "free",
    requestsPerMinute: 10,
    extractionSlots: 2,
    batchWorkers: 2,
    maxBatchItems: 50,
    monthlyCredits: 100,
    maxUnfinishedJobs: 5,
    maxActiveKeys: 5,
    maxLiveSessions: 1,
    maxLiveMinutes: 60,
  },
  basic: {
    name: "basic",
    requestsPerMinute: 60,
    extractionSlots: 2,
    batchWorkers: 2,
    maxBatchItems: 50,
    monthlyCredits: 1_000,
    maxUnfinishedJobs: 25,
    maxActiveKeys: 10,
    maxLiveSessions: 1,
    maxLiveMinutes: 240,
  },
  pro: {
    name: "pro",
    requestsPerMinute: 300,
    extractionSlots: 3,
    batchWorkers: 3,
    maxBatchItems: 50,
    monthlyCredits: 10_000,
    maxUnfinishedJobs: 50,
    maxActiveKeys: 25,
    maxLiveSessions: 3,
    maxLiveMinutes: 480,
  },
  mega: {
    name: "mega",
    requestsPerMinute: 900,
    extractionSlots: 10,
    batchWorkers: 4,
    maxBatchItems: 500,
    monthlyCredits: 50_000,
    maxUnfinishedJobs: 500,
    maxActiveKeys: 100,
    maxLiveSessions: 10,
    maxLiveMinutes: 720,
  },
  scale: {
    name: "scale",
    requestsPerMinute: 900,
    extractionSlots: 10,
    batchWorkers: 4,
    maxBatchItems: 500,
    monthlyCredits: 300_000,
    maxUnfinishedJobs: 500,
    maxActiveKeys: 100,
    maxLiveSessions: 25,
    maxLiveMinutes: 1440,
  },
};

/** The polling allowance (docs/decisions.md, rule 6): twice the request limit, at least 120 per minute. */
export function pollsPerMinute(plan: Plan): number {
  return Math.max(2 * plan.requestsPerMinute, 120);
}

export function isPlanName(value: string): value is PlanName {
  return (planNames as readonly string[]).includes(value);
}
