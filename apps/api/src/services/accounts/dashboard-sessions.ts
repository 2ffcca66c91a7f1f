import { randomBytes, randomInt } from "node:crypto";
import { and, desc, eq, gt, isNull, lte, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { ApiError } from "../../errors.ts";
import { newId } from "../../ids.ts";
import type { Database, Store } from "../../store/database.ts";
import { apiKeys, dashboardSignInLinks } from "../../store/schema.ts";
import { SigningKey } from "../cursors/index.ts";
import { hashApiKey } from "./api-keys.ts";
import {
  maxOpenSessionsPerSignInMethod,
  mayEnd,
  type NewSession,
  type SessionView,
  type SignInCredentials,
  sessionLifetimeMs,
  signInLinkLifetimeMs,
} from "./dashboard-session-terms.ts";

const sessionPrefix = "vb_session_";
const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/**
 * Dashboard sessions. A session is a row of `api_keys` of kind `session`: it authenticates,
 * and counts against the account's allowance, through the same statement as an API key
 * (docs/decisions.md, rule 6: the allowance is shared by keys and dashboard sessions), from a
 * cookie instead of a header, and it ends at its `revoked_at`. A session opened with a key
 * records that key, and `Accounts` ends it when the key is revoked or rotated. Its CSRF token is
 * an HMAC of its id, so nothing more is stored. A row exists only while its session may be open:
 * ending a session deletes it, and opening one deletes the account's expired ones.
 */
export class DashboardSessions {
  private readonly csrfKey: SigningKey;

  constructor(
    private readonly store: Store,
    private readonly now: () => Date,
  ) {
    this.csrfKey = new SigningKey(store, "dashboard-csrf-key");
  }

  /**
   * Signs in with exactly one of an API key and a sign-in link. Signing in with a key is a request
   * of that key (docs/decisions.md, rule 2): `admit` counts it against the key's allowance before
   * anything is written, so refused sign-ins leave no session behind. A link names its account
   * only once redeemed, so its session is admitted after it opens, and undone when refused.
   */
  async signIn(credentials: SignInCredentials, admit: (secret: string) => Promise<void>): Promise<NewSession> {
    const { api_key: apiKey, link_token: linkToken } = credentials;
    if (apiKey === undefined) {
      if (linkToken === undefined) throw signInNeedsOneCredential();
      return this.signInWithLink(linkToken, admit);
    }
    if (linkToken !== undefined) throw signInNeedsOneCredential();
    await admit(apiKey);
    const session = await this.openWithKey(apiKey);
    if (!session) {
      throw new ApiError(
        "unauthorized",
        "This key is being rotated or was revoked: sign in with the key that replaced it.",
      );
    }
    return session;
  }

  private async signInWithLink(token: string, admit: (secret: string) => Promise<void>): Promise<NewSession> {
    const session = await this.openWithLink(token);
    if (!session) {
      throw new ApiError(
        "unauthorized",
        "The sign-in link is unknown, expired or already used. Ask the operator for a new one.",
      );
    }
    try {
      await admit(session.secret);
    } catch (refused) {
      await this.discard(session);
      throw refused;
    }
    return session;
  }

  /**
   * Opens a session with an API key that is active and not being rotated, or answers `null`.
   * The key's row is share-locked until the session is written, so a revocation running at the
   * same time either comes first, and nothing opens, or waits and then ends the new session.
   */
  async openWithKey(key: string): Promise<NewSession | null> {
    return this.store.db.transaction(async (tx) => {
      const [opener] = await tx
        .select({ id: apiKeys.id, accountId: apiKeys.accountId })
        .from(apiKeys)
        .where(and(eq(apiKeys.secretHash, hashApiKey(key)), eq(apiKeys.kind, "api"), isNull(apiKeys.revokedAt)))
        .for("share");
      if (!opener) return null;
      return this.insert(tx, opener.accountId, opener.id);
    });
  }

  /** Opens a session with a sign-in link, which is used up by it, or answers `null` for an unknown, expired or used link. */
  async openWithLink(token: string): Promise<NewSession | null> {
    const tokenHash = hashApiKey(token);
    return this.store.db.transaction(async (tx) => {
      const now = this.now();
      const [link] = await tx
        .update(dashboardSignInLinks)
        .set({ usedAt: now })
        .where(
          and(
            eq(dashboardSignInLinks.tokenHash, tokenHash),
            isNull(dashboardSignInLinks.usedAt),
            gt(dashboardSignInLinks.expiresAt, now),
          ),
        )
        .returning({ accountId: dashboardSignInLinks.accountId });
      if (!link) return null;
      return { ...(await this.insert(tx, link.accountId, null)), linkTokenHash: tokenHash };
    });
  }

  /** Undoes a session that was refused admission: its row goes, and a link that opened it works again. */
  async discard(session: NewSession): Promise<void> {
    await this.store.db.transaction(async (tx) => {
      await tx.delete(apiKeys).where(and(eq(apiKeys.id, session.sessionId), eq(apiKeys.kind, "session")));
      if (session.linkTokenHash !== undefined) {
        await tx
          .update(dashboardSignInLinks)
          .set({ usedAt: null })
          .where(eq(dashboardSignInLinks.tokenHash, session.linkTokenHash));
      }
    });
  }

  /**
   * Ends a session now, of `accountId` when given; its cookie is refused from the next request
   * on. Answers whether there was one.
   */
  async end(sessionId: string, accountId?: string): Promise<boolean> {
    const ended = await this.store.db
      .delete(apiKeys)
      .where(
        and(
          eq(apiKeys.id, sessionId),
          eq(apiKeys.kind, "session"),
          accountId === undefined ? undefined : eq(apiKeys.accountId, accountId),
        ),
      )
      .returning({ id: apiKeys.id });
    return ended.length > 0;
  }

  /**
   * Ends a session of the account at the request of one of its sessions, as `mayEnd` allows: 403
   * `unauthorized` for a session opened by a link that a session opened with a key asks to end.
   * Answers whether there was one.
   */
  async endAskedBy(accountId: string, askingSessionId: string, sessionId: string): Promise<boolean> {
    const [asking, target] = await Promise.all([
      this.find(accountId, askingSessionId),
      this.find(accountId, sessionId),
    ]);
    if (!target) return false;
    // An asking session that ended meanwhile gets the lesser right, never the link's.
    if (!mayEnd(asking?.signedInWith ?? "api_key", target.signedInWith)) {
      throw new ApiError(
        "unauthorized",
        "A session opened with an API key may end only sessions opened with a key. Ending one opened by a sign-in link needs a session opened by a link: ask the operator for one (pnpm verbatim dashboard link <account>).",
        { status: 403 },
      );
    }
    return this.end(sessionId, accountId);
  }

  /** One open session of the account, or `null`. */
  async find(accountId: string, sessionId: string): Promise<SessionView | null> {
    const [session] = await this.list(accountId, sessionId);
    return session ?? null;
  }

  /**
   * Refuses a session opened with an API key: only a session opened by a sign-in link manages
   * keys and the webhook secret, so a leaked key cannot mint another or read the secret.
   */
  async requireLinkSession(accountId: string, sessionId: string): Promise<void> {
    const session = await this.find(accountId, sessionId);
    if (session?.signedInWith === "link") return;
    throw new ApiError(
      "unauthorized",
      "Managing keys and the webhook secret needs a session opened by a sign-in link: ask the operator for one (pnpm verbatim dashboard link <account>).",
      { status: 403 },
    );
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

  /** The account's open sessions, or the one of them named, newest first, with the key that opened each. */
  async list(accountId: string, sessionId?: string): Promise<SessionView[]> {
    const opener = alias(apiKeys, "opener");
    const rows = await this.store.db
      .select({
        id: apiKeys.id,
        openerId: opener.id,
        openerPrefix: opener.displayPrefix,
        createdAt: apiKeys.createdAt,
        lastUsedAt: apiKeys.lastUsedAt,
        expiresAt: apiKeys.revokedAt,
      })
      .from(apiKeys)
      .leftJoin(opener, eq(opener.id, apiKeys.openedByKeyId))
      .where(
        and(
          eq(apiKeys.accountId, accountId),
          eq(apiKeys.kind, "session"),
          gt(apiKeys.revokedAt, this.now()),
          sessionId === undefined ? undefined : eq(apiKeys.id, sessionId),
        ),
      )
      .orderBy(desc(apiKeys.id))
      .limit(2 * maxOpenSessionsPerSignInMethod);
    return rows.map((row) => ({
      id: row.id,
      signedInWith: row.openerId === null ? "link" : "api_key",
      apiKey: row.openerId === null ? null : { id: row.openerId, prefix: row.openerPrefix ?? "" },
      createdAt: row.createdAt,
      lastUsedAt: row.lastUsedAt,
      expiresAt: row.expiresAt ?? this.now(),
    }));
  }

  /**
   * Writes a new session of the account. Under the account's lock, it first deletes the account's
   * expired sessions, then the oldest open ones opened the same way beyond
   * `maxOpenSessionsPerSignInMethod - 1`.
   */
  private async insert(tx: Database, accountId: string, openedByKeyId: string | null): Promise<NewSession> {
    const now = this.now();
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`verbatim:sessions:${accountId}`}))`);
    await tx
      .delete(apiKeys)
      .where(and(eq(apiKeys.accountId, accountId), eq(apiKeys.kind, "session"), lte(apiKeys.revokedAt, now)));
    const openedTheSameWay = openedByKeyId === null ? sql`opened_by_key_id is null` : sql`opened_by_key_id is not null`;
    await tx.execute(sql`delete from api_keys where id in (
                           select id from api_keys where account_id = ${accountId} and kind = 'session'
                              and ${openedTheSameWay}
                            order by id desc offset ${maxOpenSessionsPerSignInMethod - 1})`);
    let secret = sessionPrefix;
    for (let index = 0; index < 40; index++) secret += alphabet[randomInt(alphabet.length)];
    const sessionId = newId("ses");
    const expiresAt = new Date(now.getTime() + sessionLifetimeMs);
    await tx.insert(apiKeys).values({
      id: sessionId,
      accountId,
      secretHash: hashApiKey(secret),
      displayPrefix: "session",
      kind: "session",
      createdAt: now,
      revokedAt: expiresAt,
      openedByKeyId,
    });
    return { secret, sessionId, accountId, expiresAt, signedInWith: openedByKeyId === null ? "link" : "api_key" };
  }
}

function signInNeedsOneCredential(): ApiError {
  return new ApiError("invalid_request", "Sign in with api_key or with link_token: one of the two.", {
    extra: { issues: [{ path: "/body", message: "must have exactly one of api_key and link_token" }] },
  });
}
