import type { components } from "@verbatim/contract";

/** The error block of a failed response, as the contract defines it. */
export type ErrorBody = components["schemas"]["ApiError"];

/** A validation issue of a 400 `invalid_request`. */
export type ValidationIssue = components["schemas"]["ValidationIssue"];

/** What a retry should change: another `mode`, another endpoint, or a `translate_to` that exists. */
export type RetryWith = Extract<ErrorBody, { retry_with: unknown }>["retry_with"];

/** The base of every error the SDK throws. */
export class VerbatimError extends Error {
  override readonly name: string = "VerbatimError";
}

/** What an error answer said beyond its body. */
export interface ErrorContext {
  status: number;
  requestId: string | null;
  /** Seconds to wait before retrying, from `Retry-After` or a batch row's `retry_after`. */
  retryAfter: number | null;
}

/**
 * The API answered with an error envelope. Branch on `code` (or `number`), never on `message`.
 * The generated family classes (`RequestError`, `AccountError`, `InputError`, `ContentError`,
 * `TransientError`, `ServerError`) narrow `code` to their family's codes.
 */
export class ApiError<Code extends string = string> extends VerbatimError {
  override readonly name: string = "ApiError";
  /** The HTTP status. */
  readonly status: number;
  /** The stable error code. */
  readonly code: Code;
  /** The stable error number; its thousands digit is the family, 5xxx means retry with backoff. */
  readonly number: number;
  /** The catalog page of the code. */
  readonly docs: string;
  /** The request's id (`req_...`), to quote to the operator. */
  readonly requestId: string | null;
  /** What to change for a retry to succeed, when the server knows (a `no_captions` says `{ mode: "audio" }`). */
  readonly retryWith: RetryWith | null;
  /** Structured details: the batch cap and size of a `batch_too_large`, the feed of a podcast error. */
  readonly details: Record<string, unknown> | null;
  /** Each field that failed validation, for `invalid_request`. */
  readonly issues: ValidationIssue[];
  /** Seconds to wait before retrying, when the server said. */
  readonly retryAfter: number | null;
  /** Whether the same request may succeed later unchanged: 429, 5xx and every 5xxx number. */
  readonly retryable: boolean;
  /** The error block as answered. */
  readonly body: ErrorBody;

  constructor(body: ErrorBody, context: ErrorContext) {
    super(body.message);
    const extras = body as { retry_with?: RetryWith; details?: Record<string, unknown>; issues?: ValidationIssue[] };
    this.status = context.status;
    this.code = body.code as Code;
    this.number = body.number;
    this.docs = body.docs;
    this.requestId = context.requestId;
    this.retryWith = extras.retry_with ?? null;
    this.details = extras.details ?? null;
    this.issues = extras.issues ?? [];
    this.retryAfter = context.retryAfter;
    this.retryable = context.status === 429 || context.status >= 500 || Math.floor(body.number / 1000) === 5;
    this.body = body;
  }
}

/** The server, or something between it and the client, answered without the API's error envelope. */
export class UnexpectedResponseError extends VerbatimError {
  override readonly name: string = "UnexpectedResponseError";
  readonly retryable: boolean;

  constructor(
    readonly status: number,
    readonly responseText: string,
    readonly requestId: string | null,
  ) {
    super(`HTTP ${status} without an error envelope: ${responseText.slice(0, 200)}`);
    this.retryable = status === 429 || status >= 500;
  }
}

/** The request never got a complete answer: the connection failed, was reset or closed early. */
export class ConnectionError extends VerbatimError {
  override readonly name: string = "ConnectionError";
  readonly retryable: boolean = true;
}

/** An attempt got no complete answer within the client's `timeout`. */
export class TimeoutError extends ConnectionError {
  override readonly name: string = "TimeoutError";
}

/** A webhook's body or signature did not verify: do not act on it. */
export class WebhookVerificationError extends VerbatimError {
  override readonly name: string = "WebhookVerificationError";
}

/** `waitForJob` gave up before the job finished; the job goes on, and can be waited for again. */
export class JobTimeoutError extends VerbatimError {
  override readonly name: string = "JobTimeoutError";

  constructor(
    readonly jobId: string,
    readonly waitedMs: number,
  ) {
    super(`job ${jobId} was still processing after ${Math.round(waitedMs / 1000)} s`);
  }
}
