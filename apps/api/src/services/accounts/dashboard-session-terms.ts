import type { DashboardRequestBody } from "@verbatim/contract";

/**
 * The terms of a dashboard session: how long it and a sign-in link last, how many stay open, what
 * its secret looks like, and which sessions one may end.
 */
/** How long a dashboard session lasts. */
export const sessionLifetimeMs = 12 * 60 * 60 * 1000;

/** How long a sign-in link printed by the CLI works. */
export const signInLinkLifetimeMs = 15 * 60 * 1000;

/**
 * Open sessions an account keeps at most for each way of signing in: opening another ends the
 * oldest opened the same way, so sign-ins cannot pile up rows, and signing in with a key never
 * ends a session opened by a link.
 */
export const maxOpenSessionsPerSignInMethod = 20;

/** The shape of a session's secret, the value of the `verbatim_session` cookie. */
export const sessionSecretPattern = /^vb_session_[0-9A-Za-z]{40}$/;

/** How a session was opened, which decides what it may change. */
export type SignInMethod = "api_key" | "link";

/**
 * Whether a session opened one way may end a session opened another way. A session opened with a
 * key ends only sessions opened with a key: the owner's link sessions, the only ones that can
 * revoke a leaked key, stay out of its reach.
 */
export function mayEnd(asking: SignInMethod, target: SignInMethod): boolean {
  return asking === "link" || target === "api_key";
}

/** What a sign-in presents: one of the two, as `POST /dashboard/api/sign-in` takes them. */
export type SignInCredentials = DashboardRequestBody<"signIn">;

/** A new session: its secret goes in the cookie, its CSRF token to the page. */
export interface NewSession {
  secret: string;
  sessionId: string;
  accountId: string;
  expiresAt: Date;
  signedInWith: SignInMethod;
  /** The hash of the link that opened it, given back if the session is discarded. */
  linkTokenHash?: string;
}

/** A session as the account's session list shows it. */
export interface SessionView {
  id: string;
  signedInWith: SignInMethod;
  apiKey: { id: string; prefix: string } | null;
  createdAt: Date;
  lastUsedAt: Date | null;
  expiresAt: Date;
}
