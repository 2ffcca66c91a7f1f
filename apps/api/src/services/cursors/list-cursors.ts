import { createHash, randomBytes } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { stringify as canonicalJson } from "safe-stable-stringify";
import { ApiError } from "../../errors.ts";
import type { Store } from "../../store/database.ts";
import { listPositions } from "../../store/schema.ts";
import { SigningKey } from "./signing-key.ts";

/**
 * Where the next page of a list starts: `skip` rows into the upstream page read from
 * `continuation` (YouTube's token of that page; `null` for the list's first page).
 */
export interface ListPosition {
  continuation: string | null;
  skip: number;
}

/** The start of every list: what an absent or empty cursor means. */
export const listStart: ListPosition = { continuation: null, skip: 0 };

/** How long a cursor is honoured: a day, like stored idempotent responses (docs/decisions.md, rule 10). */
export const cursorLifetimeMs = 24 * 60 * 60 * 1000;

/** Expired positions one `sweep` statement deletes, so no statement holds a long lock. */
export const sweepBatchSize = 1000;

const signingKeyName = "list-cursor-signing-key";
const formatVersion = "v1";
const cursorShape = /^v1\.([A-Za-z0-9_-]{22})\.([0-9]{1,12})\.([A-Za-z0-9_-]{43})$/;

/**
 * Opaque list cursors: `v1.<position id>.<expiry, Unix seconds>.<base64url HMAC-SHA256>`, 80
 * characters. YouTube's tokens grow past 4 KB on deep channel pages, and the wire format we
 * follow allows 256 (transcriptfetch v2 `cursor.maxLength`), so the position lives in
 * `list_positions` and the cursor only names it. The signature is checked before the row is
 * read, and the signed expiry refuses an old cursor without reading it. The row holds a hash of
 * the list's identity (`Listing.identity`: for a YouTube channel its channel, tab, sort and
 * query; a playlist; a search's query and type; a profile or a feed), so a cursor only pages the
 * list that issued it. `limit` and `since_video_id` are not bound: they
 * change neither which rows the list holds nor their order, so a position stays exact when a
 * client changes its page size or marker. The key lives in `service_secrets`, so every process
 * of a deployment reads the same one.
 */
export class ListCursors {
  private readonly signingKey: SigningKey;

  constructor(
    private readonly store: Store,
    private readonly now: () => Date,
  ) {
    this.signingKey = new SigningKey(store, signingKeyName);
  }

  async issue(identity: Record<string, unknown>, position: ListPosition): Promise<string> {
    const id = randomBytes(16).toString("base64url");
    const expiresAt = Math.floor((this.now().getTime() + cursorLifetimeMs) / 1000);
    await this.store.db.insert(listPositions).values({
      id,
      listIdentity: listIdentity(identity),
      continuation: position.continuation,
      skip: position.skip,
      expiresAt: new Date(expiresAt * 1000),
    });
    const signed = `${formatVersion}.${id}.${expiresAt}`;
    return `${signed}.${await this.signingKey.sign(signed)}`;
  }

  /** The position a cursor points to in this list; the list's start for an empty cursor. Refuses any other with 400 `invalid_cursor`. */
  async read(cursor: string, identity: Record<string, unknown>): Promise<ListPosition> {
    const row = await this.stored(cursor);
    if (row === null) return listStart;
    if (row.listIdentity !== listIdentity(identity)) {
      throw invalidCursor(
        "The cursor belongs to another list. Send it with the same channel, tab, sort, query, playlist, search type or platform as the request that returned it.",
      );
    }
    return { continuation: row.continuation, skip: row.skip };
  }

  /**
   * Refuses a cursor this server did not issue, or that expired, with 400 `invalid_cursor`,
   * whatever list it is sent with: for a request whose input names no list, the cursor is still
   * the request's shape, judged first.
   */
  async check(cursor: string): Promise<void> {
    await this.stored(cursor);
  }

  /** The stored position a signed, unexpired cursor names; null for an empty cursor. */
  private async stored(
    cursor: string,
  ): Promise<{ listIdentity: string; continuation: string | null; skip: number } | null> {
    if (cursor === "") return null;
    const [, id, expiresAt, signature] = cursorShape.exec(cursor) ?? [];
    if (id === undefined || expiresAt === undefined || signature === undefined) {
      throw invalidCursor("The cursor is malformed. Pass back a next_cursor exactly as it was received.");
    }
    if (!(await this.signingKey.verify(`${formatVersion}.${id}.${expiresAt}`, signature))) {
      throw invalidCursor(
        "The cursor was not issued by this server or was altered. Restart the listing without a cursor.",
      );
    }
    if (Number(expiresAt) * 1000 <= this.now().getTime()) throw expired();
    const [row] = await this.store.db
      .select({
        listIdentity: listPositions.listIdentity,
        continuation: listPositions.continuation,
        skip: listPositions.skip,
      })
      .from(listPositions)
      .where(eq(listPositions.id, id));
    // Rows go only when swept after they expire, so a missing row is an expired cursor.
    if (!row) throw expired();
    return row;
  }

  /** Deletes expired positions, `sweepBatchSize` rows a statement, until none are left; answers how many. */
  async sweep(): Promise<number> {
    const now = this.now().toISOString();
    let swept = 0;
    for (;;) {
      const deleted = await this.store.query<{ id: string }>(
        sql`delete from list_positions where id in (
          select id from list_positions where expires_at <= ${now}::timestamptz limit ${sweepBatchSize}
        ) returning id`,
      );
      swept += deleted.length;
      if (deleted.length < sweepBatchSize) return swept;
    }
  }
}

/** A canonical hash of what makes a list: the same list always gives the same value, another list another. */
function listIdentity(identity: Record<string, unknown>): string {
  return createHash("sha256")
    .update(canonicalJson(identity) ?? "")
    .digest("base64url")
    .slice(0, 22);
}

function expired(): ApiError {
  return invalidCursor("The cursor has expired. Restart the listing without a cursor.");
}

function invalidCursor(message: string): ApiError {
  return new ApiError("invalid_cursor", message);
}
