import { Verbatim } from "@verbatim/sdk";
import type { Loose } from "../audio/requests.ts";

/** What a client asked for, as the figures count it. */
export type RequestKind =
  | "captions"
  | "store hit"
  | "list"
  | "list cursor"
  | "batch"
  | "speech job"
  | "poll"
  | "monitor"
  | "rate-limited account";

/** The allowance an exchange counts against (docs/decisions.md, rule 6): polls, `/me` and monitor reads count apart. */
export type Allowance = "request" | "poll";

/** An account the clients send with. */
export interface ClientAccount {
  name: string;
  key: string;
  requestsPerMinute: number;
  pollsPerMinute: number;
}

/** One HTTP attempt as a client saw it: an SDK call's retries are exchanges of their own with the same key. */
export interface Exchange {
  kind: RequestKind;
  account: string;
  allowance: Allowance;
  via: "sdk" | "fetch";
  api: string;
  sentAt: number;
  answeredAt: number;
  /** The HTTP status, or what happened instead of an answer. */
  status: number | "timeout" | "connection failed";
  code: string | undefined;
  retryAfter: string | null;
  requestId: string | undefined;
  idempotencyKey: string | undefined;
  replayed: boolean;
  body: Loose | undefined;
}

/** Every client request is bounded: an answer that takes longer is a hang. */
export const requestTimeoutMs = 20_000;

/**
 * The clients of the cluster: each attempt goes to the next API process in turn (the SDK's too,
 * through the `fetch` it is given) and is recorded with its timing, status and body.
 */
export class Traffic {
  readonly exchanges: Exchange[] = [];
  private turn = 0;
  private readonly videosAsked = new Set<string>();

  /** `apis()` answers the API processes' current base URLs: a restarted one listens on a new port. */
  constructor(private readonly apis: () => string[]) {}

  /** The base URL of the next API process in turn, or of the one `index` names. */
  api(index?: number): string {
    const current = this.apis();
    const chosen = current[(index ?? this.turn++) % current.length];
    if (!chosen) throw new Error("no API process is running");
    return chosen;
  }

  /** Sends one request without retries, as a plain HTTP client does; answers the exchange. */
  async send(
    account: ClientAccount,
    method: string,
    path: string,
    body?: unknown,
    options: { api?: number; kind?: RequestKind } = {},
  ): Promise<Exchange> {
    const url = `${this.api(options.api)}/api/v2${path}`;
    const headers = { authorization: `Bearer ${account.key}`, "content-type": "application/json" };
    return this.attempt(account, "fetch", url, method, headers, body === undefined ? undefined : JSON.stringify(body), {
      ...(options.kind ? { kind: options.kind } : {}),
    });
  }

  /** Our Node SDK for `account`, retrying as it does, each attempt spread and recorded like the rest. */
  sdk(account: ClientAccount): Verbatim {
    return new Verbatim({
      apiKey: account.key,
      baseUrl: this.api(0),
      timeout: requestTimeoutMs,
      maxRetries: 4,
      fetch: async (input, init) => {
        const original = new URL(input instanceof Request ? input.url : String(input));
        const url = `${this.api()}${original.pathname}${original.search}`;
        const headers = new Headers(init?.headers);
        const exchange = await this.attempt(
          account,
          "sdk",
          url,
          init?.method ?? "GET",
          headers,
          init?.body ? Buffer.from(init.body as ArrayBuffer).toString("utf8") : undefined,
          { signal: init?.signal ?? undefined },
        );
        if (exchange.status === "timeout") throw new DOMException("The attempt timed out", "TimeoutError");
        if (exchange.status === "connection failed") throw new TypeError("fetch failed");
        return new Response(exchange.body === undefined ? null : JSON.stringify(exchange.body), {
          status: exchange.status,
          headers: {
            "content-type": "application/json",
            ...(exchange.requestId ? { "x-request-id": exchange.requestId } : {}),
            ...(exchange.retryAfter === null ? {} : { "retry-after": exchange.retryAfter }),
            ...(exchange.replayed ? { "idempotent-replayed": "true" } : {}),
          },
        });
      },
    });
  }

  private async attempt(
    account: ClientAccount,
    via: Exchange["via"],
    url: string,
    method: string,
    headers: Headers | Record<string, string>,
    body: string | undefined,
    options: { kind?: RequestKind; signal?: AbortSignal },
  ): Promise<Exchange> {
    const path = new URL(url).pathname.replace(/^\/api\/v2/, "");
    const idempotencyKey = new Headers(headers).get("idempotency-key") ?? undefined;
    const exchange: Exchange = {
      kind: options.kind ?? this.kindOf(method, path, body),
      account: account.name,
      allowance: allowanceOf(method, path),
      via,
      api: new URL(url).origin,
      sentAt: Date.now(),
      answeredAt: 0,
      status: "connection failed",
      code: undefined,
      retryAfter: null,
      requestId: undefined,
      idempotencyKey,
      replayed: false,
      body: undefined,
    };
    this.exchanges.push(exchange);
    const timeout = AbortSignal.timeout(requestTimeoutMs);
    try {
      const response = await fetch(url, {
        method,
        headers,
        ...(body === undefined ? {} : { body }),
        signal: options.signal ? AbortSignal.any([options.signal, timeout]) : timeout,
      });
      const text = await response.text();
      exchange.status = response.status;
      exchange.retryAfter = response.headers.get("retry-after");
      exchange.replayed = response.headers.get("idempotent-replayed") === "true";
      exchange.body = text ? (JSON.parse(text) as Loose) : undefined;
      exchange.requestId = exchange.body?.request_id ?? response.headers.get("x-request-id") ?? undefined;
      exchange.code = exchange.body?.error?.code;
    } catch {
      exchange.status = timeout.aborted ? "timeout" : "connection failed";
    }
    exchange.answeredAt = Date.now();
    return exchange;
  }

  private kindOf(method: string, path: string, body: string | undefined): RequestKind {
    const fields = body ? (JSON.parse(body) as Loose) : {};
    if (path.startsWith("/transcripts/jobs/")) return "poll";
    if (path.startsWith("/monitors")) return "monitor";
    if (path === "/transcripts/batch") return "batch";
    if (/^\/transcripts\/(channel|playlist|search)$/.test(path)) return fields.cursor ? "list cursor" : "list";
    if (method === "POST" && path === "/transcripts/video") {
      if (/^https?:/.test(fields.video)) return "speech job";
      if (this.videosAsked.has(fields.video)) return "store hit";
      this.videosAsked.add(fields.video);
      return "captions";
    }
    throw new Error(`no kind for ${method} ${path}`);
  }
}

/** Operations that count against the polling allowance, as `src/http/routes/index.ts` lists them. */
function allowanceOf(method: string, path: string): Allowance {
  if (method !== "GET") return "request";
  return /^\/(transcripts\/jobs\/|me$|usage$|health\/deep$|monitors)/.test(path) ? "poll" : "request";
}

/** Runs `step` every `intervalMs` until `until`, one at a time: a bounded rate, however slow the answers. */
export async function every(intervalMs: number, until: number, step: (round: number) => Promise<unknown>) {
  for (let round = 0; Date.now() < until; round++) {
    const next = Date.now() + intervalMs;
    await step(round).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - Date.now())));
  }
}
