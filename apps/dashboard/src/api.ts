import type { Dashboard, paths } from "@verbatim/contract";
import createClient, { type Middleware } from "openapi-fetch";

/** The API's error block, as every failure carries it in the v2 envelope. */
export type ApiErrorBlock = Dashboard.components["schemas"]["Verbatim.V2.ApiError"];

/** A failed call: what the page shows (the API's message and the request's id). */
export class ApiFailure extends Error {
  readonly status: number;
  readonly code: string;
  readonly requestId: string | undefined;

  constructor(status: number, code: string, message: string, requestId: string | undefined) {
    super(message);
    this.name = "ApiFailure";
    this.status = status;
    this.code = code;
    this.requestId = requestId;
  }
}

let csrfToken: string | undefined;
let onSignedOut: (() => void) | undefined;
let onCredentialsRefused: (() => void) | undefined;

/** Remembers the session's CSRF token: every state change sends it. */
export function setCsrfToken(token: string | undefined): void {
  csrfToken = token;
}

/** The headers every state-changing dashboard operation requires. */
export function csrf(): { "X-CSRF-Token": string } {
  return { "X-CSRF-Token": csrfToken ?? "" };
}

/** Called when the API answers 401 to a signed-in page: the session expired or was ended elsewhere. */
export function whenSignedOut(callback: () => void): void {
  onSignedOut = callback;
}

/**
 * Called when the API answers 403 `unauthorized`: the session was opened with an API key, and only
 * a session opened by a sign-in link manages keys and the webhook secret. The session stays open.
 */
export function whenCredentialsRefused(callback: () => void): void {
  onCredentialsRefused = callback;
}

const unsafeMethods = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** The v2 operations declare no CSRF header (keys need none), but a cookie session must send it. */
const sessionMiddleware: Middleware = {
  onRequest({ request }) {
    if (csrfToken !== undefined && unsafeMethods.has(request.method)) request.headers.set("X-CSRF-Token", csrfToken);
    return request;
  },
};

const origin = globalThis.location?.origin ?? "http://127.0.0.1";

/** The dashboard's own operations, at /dashboard/api. */
export const dashboardApi = createClient<Dashboard.paths>({
  baseUrl: `${origin}/dashboard/api`,
  credentials: "same-origin",
});
dashboardApi.use(sessionMiddleware);

/** The public v2 API, called with the session cookie. */
export const v2Api = createClient<paths>({ baseUrl: `${origin}/api/v2`, credentials: "same-origin" });
v2Api.use(sessionMiddleware);

interface FetchResult<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The data of a successful call, or an `ApiFailure` carrying the API's message and request id. */
export async function call<T>(pending: Promise<FetchResult<T>>, options: { signIn?: boolean } = {}): Promise<T> {
  let result: FetchResult<T>;
  try {
    result = await pending;
  } catch (cause) {
    throw new ApiFailure(0, "network", `The API could not be reached: ${(cause as Error).message}`, undefined);
  }
  const { data, error, response } = result;
  if (response.ok) return data as T;
  const envelope = error as { request_id?: string; error?: { code?: string; message?: string } } | undefined;
  const requestId = envelope?.request_id ?? response.headers.get("X-Request-Id") ?? undefined;
  const failure = new ApiFailure(
    response.status,
    envelope?.error?.code ?? `http_${response.status}`,
    envelope?.error?.message ?? `The API answered ${response.status} ${response.statusText}.`,
    requestId,
  );
  if (response.status === 401 && !options.signIn) onSignedOut?.();
  if (response.status === 403 && failure.code === "unauthorized") onCredentialsRefused?.();
  throw failure;
}

/** A failure of any kind as an `ApiFailure`, for the error state. */
export function asFailure(cause: unknown): ApiFailure {
  if (cause instanceof ApiFailure) return cause;
  return new ApiFailure(0, "client_error", cause instanceof Error ? cause.message : String(cause), undefined);
}
