import { type ErrorCode, errorTable } from "@verbatim/contract";

/** One field-level validation problem. */
export interface ValidationIssue {
  path: string;
  message: string;
}

/** The extra a specific error carries, as the error table requires. */
export type ErrorExtra =
  | { issues: ValidationIssue[]; truncated?: true }
  | { retry_with: Record<string, unknown> }
  | { details: Record<string, unknown> };

/** Options of an error beyond its code and message. */
export interface ApiErrorOptions {
  /** The field the table says this code carries. */
  extra?: ErrorExtra;
  /** Seconds the client should wait, sent as `Retry-After`. */
  retryAfterSeconds?: number;
  /** An HTTP status other than the table's, where a decision names one (413 for an oversized body). */
  status?: number;
  /** The underlying failure, for the logs only. */
  cause?: unknown;
}

/**
 * A failure that is answered in the error envelope. Its number and status come from the
 * spec's error table, never from the call site.
 */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly number: number;
  readonly status: number;
  readonly extra: ErrorExtra | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(code: ErrorCode, message: string, options: ApiErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "ApiError";
    const entry = errorTable[code];
    this.code = code;
    this.number = entry.number;
    this.status = options.status ?? entry.status;
    this.extra = options.extra;
    this.retryAfterSeconds = options.retryAfterSeconds;
    const carried = this.extra === undefined ? null : Object.keys(this.extra)[0];
    if (carried !== entry.carries && !(carried === null && entry.extraOptional)) {
      throw new TypeError(`error ${code} carries ${entry.carries ?? "nothing"}, not ${carried ?? "nothing"}`);
    }
  }

  /** The `error` block of the envelope. */
  toBody(docsBaseUrl: string): Record<string, unknown> {
    return {
      code: this.code,
      number: this.number,
      message: this.message,
      docs: `${docsBaseUrl}/docs/errors/${this.code}`,
      ...this.extra,
    };
  }
}
