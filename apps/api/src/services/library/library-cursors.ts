import { ApiError } from "../../errors.ts";
import type { Store } from "../../store/database.ts";
import { cursorLifetimeMs, SigningKey } from "../cursors/index.ts";

const formatVersion = "l1";
const cursorShape = /^l1\.([0-9]{1,20})\.([0-9]{1,20})\.([0-9]{1,12})\.([A-Za-z0-9_-]{43})$/;

/** Where a newest-first library page ends: its last entry's `fetched_at` in microseconds, and its id. */
export interface LibraryPosition {
  fetchedMicros: string;
  id: string;
}

/**
 * Cursors of the library and its searches: `l1.<fetched_at µs>.<entry id>.<expiry>.<base64url
 * HMAC-SHA256>` of the last entry of a page, so the next page is the entries older than it,
 * with no stored position. The signature covers a scope the cursor does not carry (the account,
 * and for a search its query and filters), so a cursor pages only the listing that issued it.
 */
export class LibraryCursors {
  private readonly signingKey: SigningKey;

  constructor(
    store: Store,
    private readonly now: () => Date,
  ) {
    this.signingKey = new SigningKey(store, "library-cursor-signing-key");
  }

  async issue(scope: string, position: LibraryPosition): Promise<string> {
    const expiresAt = Math.floor((this.now().getTime() + cursorLifetimeMs) / 1000);
    const signature = await this.signingKey.sign(signedPart(scope, position, expiresAt));
    return `${formatVersion}.${position.fetchedMicros}.${position.id}.${expiresAt}.${signature}`;
  }

  /** The position a page after this cursor starts below; refuses any other cursor with 400 `invalid_cursor`. */
  async read(scope: string, cursor: string): Promise<LibraryPosition> {
    const [, fetchedMicros, id, expiresAt, signature] = cursorShape.exec(cursor) ?? [];
    if (fetchedMicros === undefined || id === undefined || expiresAt === undefined || signature === undefined) {
      throw invalidCursor("The cursor is malformed. Pass back a next_cursor exactly as it was received.");
    }
    const position = { fetchedMicros, id };
    if (!(await this.signingKey.verify(signedPart(scope, position, Number(expiresAt)), signature))) {
      throw invalidCursor(
        "The cursor was not issued for this listing (this account, query and filters) by this server, or was altered. Restart without a cursor.",
      );
    }
    if (Number(expiresAt) * 1000 <= this.now().getTime()) {
      throw invalidCursor("The cursor has expired. Restart without a cursor.");
    }
    return position;
  }
}

function signedPart(scope: string, position: LibraryPosition, expiresAt: number): string {
  return `${formatVersion}.${scope}.${position.fetchedMicros}.${position.id}.${expiresAt}`;
}

function invalidCursor(message: string): ApiError {
  return new ApiError("invalid_cursor", message);
}
