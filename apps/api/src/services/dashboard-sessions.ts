import { randomBytes, randomInt } from "node:crypto";
import { and, eq, gt, isNull, or } from "drizzle-orm";
import { newId } from "../ids.ts";
import type { Store } from "../store/database.ts";
import { apiKeys, dashboardSignInLinks } from "../store/schema.ts";
import { hashApiKey } from "./api-keys.ts";
import { SigningKey } from "./signing-key.ts";

/** How long a dashboard session lasts. */
export const sessionLifetimeMs = 12 * 60 * 60 * 1000;

/** How long a sign-in link printed by the CLI works. */
export const signInLinkLifetimeMs = 15 * 60 * 1000;

const sessionPrefix = "vb_session_";
const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** The shape of a session's secret, the value of the `verbatim_session` cookie. */
export const sessionSecretPattern = /^vb_session_[0-9A-Za-z]{40}$/;

/** A new session: its secret goes in the cookie, its CSRF token to the page. */
export interface NewSession {
  secret: string;
  sessionId: string;
  accountId: string;
  expiresAt: Date;
}

/**
 * Dashboard sessions. A session is a row of `api_keys` of kind `session`: it authenticates,
 * and counts against the account's allowance, through the same statement as an API key (spec
 * 8.1: the allowance is shared by keys and dashboard sessions), from a cookie instead of a
 * header, and it ends at its `revoked_at`. Its CSRF token is an HMAC of its id, so nothing
 * more is stored.
 */
export class DashboardSessions {
  private readonly csrfKey: SigningKey;

  constructor(
    private readonly store: Store,
    private readonly now: () => Date,
  ) {
    this.csrfKey = new SigningKey(store, "dashboard-csrf-key");
  }

  /** The account of an active API key (not a session), or `null`: signing in with a key does not count as its use. */
  async accountOfKey(key: string): Promise<string | null> {
    const now = this.now();
    const [row] = await this.store.db
      .select({ accountId: apiKeys.accountId })
      .from(apiKeys)
      .where(
        and(
          eq(apiKeys.secretHash, hashApiKey(key)),
          eq(apiKeys.kind, "api"),
          or(isNull(apiKeys.revokedAt), gt(apiKeys.revokedAt, now)),
        ),
      );
    return row?.accountId ?? null;
  }

  /** Opens a session of the account. */
  async open(accountId: string): Promise<NewSession> {
    let secret = sessionPrefix;
    for (let index = 0; index < 40; index++) secret += alphabet[randomInt(alphabet.length)];
    const sessionId = newId("key");
    const expiresAt = new Date(this.now().getTime() + sessionLifetimeMs);
    await this.store.db.insert(apiKeys).values({
      id: sessionId,
      accountId,
      secretHash: hashApiKey(secret),
      displayPrefix: "session",
      kind: "session",
      createdAt: this.now(),
      revokedAt: expiresAt,
    });
    return { secret, sessionId, accountId, expiresAt };
  }

  /** Ends a session now; its cookie is refused from the next request on. */
  async end(sessionId: string): Promise<void> {
    await this.store.db
      .update(apiKeys)
      .set({ revokedAt: this.now() })
      .where(and(eq(apiKeys.id, sessionId), eq(apiKeys.kind, "session")));
  }

  /** When the session ends. */
  async expiresAt(sessionId: string): Promise<Date | null> {
    const [row] = await this.store.db
      .select({ revokedAt: apiKeys.revokedAt })
      .from(apiKeys)
      .where(and(eq(apiKeys.id, sessionId), eq(apiKeys.kind, "session")));
    return row?.revokedAt ?? null;
  }

  /** The CSRF token of a session: the page sends it back as `X-CSRF-Token` with every state change. */
  csrfTokenOf(sessionId: string): Promise<string> {
    return this.csrfKey.sign(`csrf:${sessionId}`);
  }

  /** Whether `token` is the session's CSRF token, compared in constant time. */
  verifyCsrfToken(sessionId: string, token: string): Promise<boolean> {
    return this.csrfKey.verify(`csrf:${sessionId}`, token);
  }

  /** A one-time sign-in link's token for the account, valid for 15 minutes; only its hash is stored. */
  async createSignInLink(accountId: string): Promise<{ token: string; expiresAt: Date }> {
    const token = randomBytes(32).toString("base64url");
    const expiresAt = new Date(this.now().getTime() + signInLinkLifetimeMs);
    await this.store.db.insert(dashboardSignInLinks).values({
      tokenHash: hashApiKey(token),
      accountId,
      expiresAt,
      createdAt: this.now(),
    });
    return { token, expiresAt };
  }

  /** Uses a sign-in link: the account it signs in to, or `null` when the token is unknown, expired or used. */
  async redeemSignInLink(token: string): Promise<string | null> {
    const now = this.now();
    const [row] = await this.store.db
      .update(dashboardSignInLinks)
      .set({ usedAt: now })
      .where(
        and(
          eq(dashboardSignInLinks.tokenHash, hashApiKey(token)),
          isNull(dashboardSignInLinks.usedAt),
          gt(dashboardSignInLinks.expiresAt, now),
        ),
      )
      .returning({ accountId: dashboardSignInLinks.accountId });
    return row?.accountId ?? null;
  }
}
