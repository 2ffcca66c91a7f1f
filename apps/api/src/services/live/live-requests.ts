import type { PlanName } from "../accounts/index.ts";

/** What `POST /live` takes, validated. */
export interface LiveCreateInput {
  url: string;
  language?: string;
  webhook_url?: string | null;
  max_minutes?: number;
  partials?: boolean;
}

/** The request a session is asked for in. */
export interface LiveRequest {
  accountId: string;
  plan: PlanName;
  requestId: string;
  /** The base of `error.docs` links in what the session records. */
  docsBaseUrl: string;
  signal?: AbortSignal;
}

/** One message of a session's event stream, in the order it is sent. */
export type LiveStreamMessage =
  | { kind: "event"; seq: number | null; type: string; data: Record<string, unknown> }
  /** Nothing happened for a while: a comment keeps the connection open. */
  | { kind: "keep-alive" };
