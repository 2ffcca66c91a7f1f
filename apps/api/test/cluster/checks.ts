import { sql } from "drizzle-orm";
import type { Store } from "../../src/store/database.ts";
import type { ReceivedRequest } from "../webhooks/receiver.ts";
import type { Allowance, ClientAccount, Exchange } from "./traffic.ts";

/** The operation a monitor check's charge is recorded under (`src/services/monitors/monitor-transcripts.ts`). */
const monitorCheckOperation = "POST /monitors/{monitorId}/check";

/** Requests by kind and status: `{ "captions": { "200": 12, "503": 1 } }`. */
export function requestFigures(exchanges: Exchange[]): Record<string, Record<string, number>> {
  const figures: Record<string, Record<string, number>> = {};
  for (const exchange of exchanges) {
    const byStatus = figures[exchange.kind] ?? {};
    figures[exchange.kind] = byStatus;
    const status = exchange.code ? `${exchange.status} ${exchange.code}` : String(exchange.status);
    byStatus[status] = (byStatus[status] ?? 0) + 1;
  }
  return figures;
}

/**
 * The most requests of one allowance the account certainly had admitted within 60 seconds: an
 * exchange was admitted somewhere between sending and its answer, so only those whose whole
 * span lies inside a window count. Refusals (429), failures of admission (503) and requests
 * without an answer are left out: it is a lower bound, which must never exceed the limit.
 */
export function busiestMinute(exchanges: Exchange[], account: string, allowance: Allowance): number {
  const admitted = exchanges
    .filter(
      (exchange) =>
        exchange.account === account &&
        exchange.allowance === allowance &&
        typeof exchange.status === "number" &&
        exchange.status !== 429 &&
        exchange.status !== 401 &&
        exchange.status < 500,
    )
    .sort((a, b) => a.sentAt - b.sentAt);
  let busiest = 0;
  for (const first of admitted) {
    const within = admitted.filter(
      (other) => other.sentAt >= first.answeredAt && other.answeredAt < first.sentAt + 60_000,
    ).length;
    busiest = Math.max(busiest, within + 1);
  }
  return busiest;
}

/** What one account's ledger holds against what its clients were told. */
export interface LedgerComparison {
  account: string;
  /** Credits the answers the clients received said they spent, each request once. */
  answeredCredits: number;
  /** Credits charged to requests whose answers the clients received. */
  chargedForAnswered: number;
  /** Requests answered with a cost that differs from their charge: must be none. */
  mismatched: Array<{ requestId: string; answered: number; charged: number }>;
  /** Requests charged that no client saw answered (their answer was lost to a fault). */
  chargedUnanswered: number;
  /** POSTs whose outcome may have been lost to a fault: at most this many charges may be unseen. */
  postsWithLostAnswers: number;
  /** Jobs' charges and monitor checks', which no request's answer reports. */
  jobCredits: number;
  monitorCheckCredits: number;
  /** The ledger's sum of every charge and grant against the account's balance. */
  ledgerSum: number;
  balance: number;
}

/** Compares an account's charges with the `usage` its clients saw; job request ids are charged on completion. */
export async function compareLedger(
  store: Store,
  accountId: string,
  account: ClientAccount,
  exchanges: Exchange[],
  jobRequestIds: Set<string>,
): Promise<LedgerComparison> {
  const charges = await store.query<{ request_id: string; operation: string; credits: number; rows: number }>(
    sql`select request_id, operation, -sum(delta)::float8 as credits, count(*)::int as rows
          from credit_ledger where account_id = ${accountId} and kind in ('charge', 'reversal') group by request_id, operation`,
  );
  const [totals] = await store.query<{ ledger_sum: number; balance: number }>(
    sql`select coalesce((select sum(delta) from credit_ledger where account_id = ${accountId}), 0)::float8 as ledger_sum,
               credits::float8 as balance from accounts where id = ${accountId}`,
  );
  const own = exchanges.filter((exchange) => exchange.account === account.name);
  const answered = new Map<string, number>();
  for (const exchange of own) {
    const spent = exchange.body?.usage?.credits_spent;
    if (typeof exchange.status === "number" && exchange.status < 300 && exchange.requestId && spent !== undefined) {
      if (!exchange.body?.job_id) answered.set(exchange.requestId, spent);
    }
  }
  const comparison: LedgerComparison = {
    account: account.name,
    answeredCredits: [...answered.values()].reduce((sum, credits) => sum + credits, 0),
    chargedForAnswered: 0,
    mismatched: [],
    chargedUnanswered: 0,
    postsWithLostAnswers: postsWithLostAnswers(own),
    jobCredits: 0,
    monitorCheckCredits: 0,
    ledgerSum: Number(totals?.ledger_sum),
    balance: Number(totals?.balance),
  };
  const charged = new Map(charges.map((charge) => [charge.request_id, Number(charge.credits)]));
  for (const charge of charges) {
    const credits = Number(charge.credits);
    if (credits === 0) continue;
    if (charge.operation === monitorCheckOperation) comparison.monitorCheckCredits += credits;
    else if (jobRequestIds.has(charge.request_id)) comparison.jobCredits += credits;
    else if (answered.has(charge.request_id)) comparison.chargedForAnswered += credits;
    else comparison.chargedUnanswered++;
  }
  for (const [requestId, credits] of answered) {
    const chargedCredits = charged.get(requestId) ?? 0;
    if (chargedCredits !== credits)
      comparison.mismatched.push({ requestId, answered: credits, charged: chargedCredits });
  }
  return comparison;
}

/**
 * POSTs whose outcome the client may not have learned: no attempt was answered 2xx and at least
 * one went unanswered, so it may have run and been charged. A plain request is one attempt, an
 * SDK call all the attempts it sent with one Idempotency-Key.
 */
function postsWithLostAnswers(exchanges: Exchange[]): number {
  const calls = new Map<string, Exchange[]>();
  exchanges.forEach((exchange, index) => {
    if (exchange.allowance === "poll") return;
    const call = exchange.idempotencyKey ?? `plain-${index}`;
    calls.set(call, [...(calls.get(call) ?? []), exchange]);
  });
  return [...calls.values()].filter(
    (attempts) =>
      attempts.some((attempt) => typeof attempt.status !== "number") &&
      !attempts.some((attempt) => typeof attempt.status === "number" && attempt.status < 300),
  ).length;
}

/** SDK calls that were retried: their attempts, the statuses they met, and what the ledger charged their answer. */
export function retriedSdkCalls(exchanges: Exchange[]): Map<string, Exchange[]> {
  const calls = new Map<string, Exchange[]>();
  for (const exchange of exchanges) {
    if (exchange.via !== "sdk" || !exchange.idempotencyKey) continue;
    calls.set(exchange.idempotencyKey, [...(calls.get(exchange.idempotencyKey) ?? []), exchange]);
  }
  return new Map([...calls].filter(([, attempts]) => attempts.length > 1));
}

/** Webhook requests grouped by their `webhook-id`. */
export function deliveriesById(requests: ReceivedRequest[]): Map<string, ReceivedRequest[]> {
  const byId = new Map<string, ReceivedRequest[]>();
  for (const request of requests) {
    const id = String(request.headers["webhook-id"]);
    byId.set(id, [...(byId.get(id) ?? []), request]);
  }
  return byId;
}
